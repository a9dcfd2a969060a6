package bans

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func mustBan(t testing.TB, e Entry) Ban {
	t.Helper()
	b, err := e.Ban(now)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestListFindsPlayersByNameAndUUID(t *testing.T) {
	l := NewList()
	if l.HasPlayerBans() {
		t.Fatal("an empty list has player bans")
	}
	l.Add(mustBan(t, Entry{Kind: KindName, Value: "Griefer", Reason: "by name"}))
	l.Add(mustBan(t, Entry{Kind: KindUUID, Value: "069a79f444e94726a5befca90e38aaf5", Reason: "by uuid"}))
	if !l.HasPlayerBans() {
		t.Fatal("HasPlayerBans is false")
	}
	if b, ok := l.Player("gRIEFER", "", now); !ok || b.Reason != "by name" {
		t.Errorf("by name, another case: %+v %v", b, ok)
	}
	if b, ok := l.Player("Notch", "069a79f4-44e9-4726-a5be-fca90e38aaf5", now); !ok || b.Reason != "by uuid" {
		t.Errorf("by uuid: %+v %v", b, ok)
	}
	if _, ok := l.Player("Steve", "00000000-0000-0000-0000-000000000001", now); ok {
		t.Error("a player on no ban is found")
	}
	if _, ok := l.Player(strings.Repeat("x", 10<<10), "\x00", now); ok {
		t.Error("a hostile name is found")
	}
}

func TestListFindsTheNarrowestNetwork(t *testing.T) {
	l := NewList()
	l.Add(mustBan(t, Entry{Kind: KindAddress, Value: "198.51.0.0/16", Reason: "wide"}))
	l.Add(mustBan(t, Entry{Kind: KindAddress, Value: "198.51.100.7", Reason: "one"}))
	l.Add(mustBan(t, Entry{Kind: KindAddress, Value: "2001:db8::/32", Reason: "v6"}))
	for addr, want := range map[string]string{
		"198.51.100.7": "one", "::ffff:198.51.100.7": "one", "198.51.3.4": "wide",
		"2001:db8:1::5": "v6", "198.52.0.1": "", "2001:db9::1": "", "10.0.0.1": "",
	} {
		b, ok := l.Addr(netip.MustParseAddr(addr), now)
		if got := b.Reason; got != want || ok != (want != "") {
			t.Errorf("Addr(%s) = %q %v, want %q", addr, got, ok, want)
		}
	}
}

func TestListEndedBansDropOutByThemselves(t *testing.T) {
	l := NewList()
	l.Add(mustBan(t, Entry{Kind: KindName, Value: "Brief", Expires: now.Add(time.Hour).Format(time.RFC3339)}))
	l.Add(mustBan(t, Entry{Kind: KindAddress, Value: "203.0.113.1", Expires: now.Add(time.Hour).Format(time.RFC3339)}))
	later := now.Add(2 * time.Hour)
	if _, ok := l.Player("Brief", "", now); !ok {
		t.Fatal("a ban in force is not found")
	}
	if _, ok := l.Player("Brief", "", later); ok {
		t.Error("a ban that has ended is found")
	}
	if _, ok := l.Addr(netip.MustParseAddr("203.0.113.1"), later); ok {
		t.Error("an address ban that has ended is found")
	}
	if got := l.All(later); len(got) != 0 {
		t.Errorf("All lists ended bans: %+v", got)
	}
	if got := l.Counts(later); got != [3]int{} || l.HasPlayerBans() {
		t.Errorf("after the sweep: counts %v, HasPlayerBans %v", got, l.HasPlayerBans())
	}
}

func TestListReplaceAddRemove(t *testing.T) {
	l := NewList()
	b := mustBan(t, Entry{Kind: KindName, Value: "Steve", Reason: "first"})
	if replaced, _ := l.Add(b); replaced {
		t.Error("a new ban replaced one")
	}
	b.Reason = "second"
	if replaced, _ := l.Add(b); !replaced {
		t.Error("the same key did not replace")
	}
	if got := l.Counts(now); got != [3]int{1, 0, 0} {
		t.Errorf("counts %v after a replacement", got)
	}
	if _, ok := l.Remove(KindName, "steve"); !ok {
		t.Error("Remove did not find the ban")
	}
	if _, ok := l.Remove(KindName, "steve"); ok {
		t.Error("Remove found a ban twice")
	}
	l.Replace([]Ban{mustBan(t, Entry{Kind: KindAddress, Value: "192.0.2.0/24"}), mustBan(t, Entry{Kind: KindAddress, Value: "192.0.2.0/24"})})
	if got := l.Counts(now); got != [3]int{0, 0, 1} {
		t.Errorf("Replace with a key twice counts %v", got)
	}
	l.Remove(KindAddress, "192.0.2.0/24")
	if _, ok := l.Addr(netip.MustParseAddr("192.0.2.1"), now); ok || l.addrs.Load() != 0 || l.lengths4[24] != 0 {
		t.Error("a removed network is still counted")
	}
}

// A list of 100,000 bans of each kind finds a ban as it finds one in a short list (map
// lookups, one per network length held), and holds no more than MaxBans.
func TestListOfManyBansIsBoundedAndFound(t *testing.T) {
	l := NewList()
	var all []Ban
	for i := range 100_000 {
		all = append(all,
			Ban{Kind: KindName, Value: fmt.Sprintf("p%d", i)},
			Ban{Kind: KindAddress, Value: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32).String()})
	}
	if err := l.Replace(all); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Player("P99999", "", now); !ok {
		t.Error("the last name is not found")
	}
	if _, ok := l.Addr(netip.MustParseAddr("10.1.134.159"), now); !ok { // 99999
		t.Error("the last address is not found")
	}
	if got := l.Counts(now); got != [3]int{100_000, 0, 100_000} {
		t.Errorf("counts %v", got)
	}
	_, err := l.Add(Ban{Kind: KindUUID, Value: "00000000-0000-0000-0000-000000000001"})
	if !errors.Is(err, ErrFull) {
		t.Errorf("a ban past MaxBans: %v, want ErrFull", err)
	}
	if err := l.Replace(make([]Ban, MaxBans+1)); !errors.Is(err, ErrFull) {
		t.Errorf("Replace past MaxBans: %v", err)
	}
	if got := l.Counts(now); got[0] != 100_000 {
		t.Error("a Replace refused as too long changed the list")
	}
}

func TestListCountsInMetrics(t *testing.T) {
	l := NewList()
	l.Add(mustBan(t, Entry{Kind: KindName, Value: "Steve"}))
	l.Refused(KindName)
	l.Refused(KindName)
	reg := prometheus.NewRegistry()
	reg.MustRegister(l)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.Metric {
			got[f.GetName()+"/"+m.Label[0].GetValue()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{
		"moonbridge_bans/name": 1, "moonbridge_bans/uuid": 0, "moonbridge_bans/address": 0,
		"moonbridge_ban_refusals_total/name": 2, "moonbridge_ban_refusals_total/uuid": 0, "moonbridge_ban_refusals_total/address": 0,
	}
	if !maps.Equal(got, want) {
		t.Errorf("metrics %v, want %v", got, want)
	}
}
