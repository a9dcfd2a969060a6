package docker

import (
	"cmp"
	"errors"
	"reflect"
	"testing"
)

func TestRouteOfLabels(t *testing.T) {
	twoNets := func(labels map[string]string) container {
		c := running("id", "mc", "games", "192.0.2.70", labels)
		c.NetworkSettings.Networks["lobby"] = network{IPAddress: "192.0.2.71"}
		return c
	}
	v6 := running("id", "mc", "games", "", map[string]string{"moonbridge.host": "a"})
	v6.NetworkSettings.Networks["games"] = network{GlobalIPv6Address: "2001:db8::7"}
	paused := running("id", "mc", "games", "192.0.2.72", map[string]string{"moonbridge.host": "a"})
	paused.State = "paused"
	for name, c := range map[string]struct {
		c      container
		want   []string // backends; nil: no route
		prefix string   // "": moonbridge
	}{
		"network label":    {twoNets(map[string]string{"moonbridge.host": "a", "moonbridge.network": "lobby"}), []string{"192.0.2.71:25565"}, ""},
		"backend label":    {twoNets(map[string]string{"moonbridge.host": "a", "moonbridge.backend": "mc.internal:25599"}), []string{"mc.internal:25599"}, ""},
		"ipv6":             {v6, []string{"[2001:db8::7]:25565"}, ""},
		"paused":           {paused, nil, ""},
		"other prefix":     {running("id", "mc", "games", "192.0.2.73", map[string]string{"mb.host": "a", "moonbridge.port": "1"}), []string{"192.0.2.73:25565"}, "mb"},
		"waking, own port": {stopped(running("id", "mc", "games", "", map[string]string{"moonbridge.host": "a", "moonbridge.wake": "1", "moonbridge.port": "25600"})), []string{"mc:25600"}, ""},
	} {
		r, ok, err := routeOf(c.c, cmp.Or(c.prefix, "moonbridge"))
		if err != nil || ok != (c.want != nil) || ok && !reflect.DeepEqual(r.Backends, c.want) {
			t.Errorf("%s: got %+v, %v, %v; want backends %v", name, r, ok, err, c.want)
		}
	}
}

func TestRouteOfLabelErrors(t *testing.T) {
	for name, c := range map[string]struct {
		labels map[string]string
		label  string
	}{
		"port 0":                 {map[string]string{"moonbridge.host": "a", "moonbridge.port": "0"}, "moonbridge.port"},
		"backend without port":   {map[string]string{"moonbridge.host": "a", "moonbridge.backend": "mc.internal"}, "moonbridge.backend"},
		"idle without wake":      {map[string]string{"moonbridge.host": "a", "moonbridge.stop_after_idle": "10m"}, "moonbridge.stop_after_idle"},
		"idle not a duration":    {map[string]string{"moonbridge.host": "a", "moonbridge.wake": "true", "moonbridge.stop_after_idle": "soon"}, "moonbridge.stop_after_idle"},
		"network it is not on":   {map[string]string{"moonbridge.host": "a", "moonbridge.network": "elsewhere"}, "moonbridge.network"},
		"waking on default only": {map[string]string{"moonbridge.host": "a", "moonbridge.wake": "true", "moonbridge.network": "bridge"}, "moonbridge.backend"},
		"allow not a country":    {map[string]string{"moonbridge.host": "a", "moonbridge.countries.allow": "NL,Netherlands"}, "moonbridge.countries.allow"},
		"deny not a country":     {map[string]string{"moonbridge.host": "a", "moonbridge.countries.deny": "ZZ"}, "moonbridge.countries.deny"},
	} {
		ctr := running("id", "mc", "games", "192.0.2.80", c.labels)
		ctr.NetworkSettings.Networks["bridge"] = network{IPAddress: "192.0.2.81"}
		_, ok, err := routeOf(ctr, "moonbridge")
		var labelErr *LabelError
		if ok || !errors.As(err, &labelErr) || labelErr.Label != c.label || labelErr.Container != "mc" {
			t.Errorf("%s: got ok %v, %v; want a LabelError on %s", name, ok, err, c.label)
		}
	}
}

// The country labels set the route's lists, upper-cased; without them the lists are empty (every
// country), as the file's default.
func TestRouteOfCountryLabels(t *testing.T) {
	c := running("id", "mc", "games", "192.0.2.90", map[string]string{"moonbridge.host": "a",
		"moonbridge.countries.allow": "nl, be", "moonbridge.countries.deny": "t1"})
	r, ok, err := routeOf(c, "moonbridge")
	if err != nil || !ok || !reflect.DeepEqual(r.Countries.Allow, []string{"NL", "BE"}) || !reflect.DeepEqual(r.Countries.Deny, []string{"T1"}) {
		t.Errorf("got %+v, %v, %v; want allow NL, BE and deny T1", r.Countries, ok, err)
	}
	plain, _, _ := routeOf(running("id", "mc", "games", "192.0.2.91", map[string]string{"moonbridge.host": "a"}), "moonbridge")
	if plain.Countries.Allow == nil || len(plain.Countries.Allow)+len(plain.Countries.Deny) != 0 {
		t.Errorf("without the labels: %+v, want empty lists", plain.Countries)
	}
}

// A host network gives no address: the backend label is needed.
func TestRouteOfHostNetwork(t *testing.T) {
	c := running("id", "mc", "host", "", map[string]string{"moonbridge.host": "a"})
	if _, ok, err := routeOf(c, "moonbridge"); ok || err == nil {
		t.Errorf("got ok %v, %v; want an error asking for moonbridge.backend", ok, err)
	}
	c.Labels["moonbridge.backend"] = "127.0.0.1:25565"
	r, ok, err := routeOf(c, "moonbridge")
	if !ok || err != nil || !reflect.DeepEqual(r, route("mc", "127.0.0.1:25565", "a")) {
		t.Errorf("with the backend label: got %+v, %v, %v", r, ok, err)
	}
}
