package docker

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/discover"
	"github.com/moonbridge/moonbridge/routes"
)

// The labels a container is routed by, each after the prefix and a dot (moonbridge.host).
const (
	LabelHost          = "host"            // handshake hosts, comma-separated; required
	LabelPort          = "port"            // the container's port; DefaultPort without it
	LabelNetwork       = "network"         // the network whose address is dialled
	LabelBackend       = "backend"         // host:port to dial instead of the container's address
	LabelWake          = "wake"            // true: a stopped container stays a route, started for a login
	LabelStopAfterIdle = "stop_after_idle" // with wake: stop it after this long without a player
	LabelRoute         = "route"           // containers with the same route share one route
	LabelBalance       = "balance"         // how a shared route picks among its containers
	// The route's country lists (routes.Countries), comma-separated codes: who may use it by
	// the country a trusted proxy's header says.
	LabelCountriesAllow = "countries.allow"
	LabelCountriesDeny  = "countries.deny"
)

// DefaultPort is the container port dialled without a port label.
const DefaultPort = 25565

// RoutePrefix starts the name of every route this source reports: docker/<container name>, or
// docker/<route label>.
const RoutePrefix = "docker/"

// defaultNetworks are the engines' default networks, whose DNS does not resolve container
// names; host and none give a container no address of its own.
var defaultNetworks = []string{"bridge", "podman", "host", "none"}

// LabelError is a container whose labels make no route: it is left out, with a log line.
type LabelError struct {
	Container string // its name
	Label     string // the whole key, moonbridge.port
	Reason    string
}

func (e *LabelError) Error() string {
	return fmt.Sprintf("container %s: label %s: %s", e.Container, e.Label, e.Reason)
}

// labels reads one container's labels under a prefix.
type labels struct {
	prefix string
	c      container
}

func (l labels) get(name string) (string, bool) {
	v, ok := l.c.Labels[l.prefix+"."+name]
	return strings.TrimSpace(v), ok
}

func (l labels) fail(name, format string, args ...any) error {
	return &LabelError{Container: l.c.name(), Label: l.prefix + "." + name, Reason: fmt.Sprintf(format, args...)}
}

// routeOf is the route container c adds, when it adds one (ok): a running container, or one
// that wakes. Labels that do not parse are an error whether or not it runs.
func routeOf(c container, prefix string) (r routes.Route, ok bool, err error) {
	l := labels{prefix: prefix, c: c}
	hosts := l.hosts()
	if len(hosts) == 0 {
		return r, false, l.fail(LabelHost, "names no host")
	}
	port, err := l.port()
	if err != nil {
		return r, false, err
	}
	wake, err := l.wake()
	if err != nil {
		return r, false, err
	}
	countries, err := l.countries()
	if err != nil {
		return r, false, err
	}
	if c.State != "running" && wake == nil {
		return r, false, nil
	}
	backend, err := l.backend(port, wake != nil)
	if err != nil {
		return r, false, err
	}
	name, _ := l.get(LabelRoute)
	if name == "" {
		name = c.name()
	}
	r = routes.Default(backend)
	r.Name, r.Hosts = RoutePrefix+name, hosts
	if balance, _ := l.get(LabelBalance); balance != "" {
		r.Balance = balance
	}
	if wake != nil {
		r.Wake.Container, r.Wake.StopAfterIdle = wake.container, wake.stopAfterIdle
	}
	r.Countries = countries
	return r, true, nil
}

// countries are the route's country lists from the countries labels: empty without them.
func (l labels) countries() (c routes.Countries, err error) {
	for _, list := range []struct {
		label string
		codes *[]string
	}{{LabelCountriesAllow, &c.Allow}, {LabelCountriesDeny, &c.Deny}} {
		v, _ := l.get(list.label)
		if *list.codes, err = discover.CountryList(v); err != nil {
			return c, l.fail(list.label, "%v", err)
		}
	}
	return c, nil
}

func (l labels) hosts() []string {
	v, _ := l.get(LabelHost)
	var hosts []string
	for h := range strings.SplitSeq(v, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

func (l labels) port() (int, error) {
	v, ok := l.get(LabelPort)
	if !ok {
		return DefaultPort, nil
	}
	port, err := strconv.Atoi(v)
	if err != nil || port < 1 || port > 65535 {
		return 0, l.fail(LabelPort, "%q is not a port from 1 to 65535", v)
	}
	return port, nil
}

// wake is how a container wakes: the container itself, stopped after this long without a
// player (0: never).
type wake struct {
	container     string
	stopAfterIdle time.Duration
}

// wake is the container's wake, nil unless its wake label is true.
func (l labels) wake() (*wake, error) {
	v, ok := l.get(LabelWake)
	on, err := strconv.ParseBool(v)
	if ok && err != nil {
		return nil, l.fail(LabelWake, "%q is not true or false", v)
	}
	idleText, hasIdle := l.get(LabelStopAfterIdle)
	switch {
	case hasIdle && !on:
		return nil, l.fail(LabelStopAfterIdle, "is for a container whose %s.%s is true", l.prefix, LabelWake)
	case !on:
		return nil, nil
	}
	w := &wake{container: l.c.ID}
	if hasIdle {
		if w.stopAfterIdle, err = time.ParseDuration(idleText); err != nil || w.stopAfterIdle < 0 {
			return nil, l.fail(LabelStopAfterIdle, "%q is not a duration such as 10m (0: never stop it)", idleText)
		}
	}
	return w, nil
}

// backend is the address the route dials: the backend label; for a waking container its name,
// which the engine's DNS resolves on a user-defined network whether it runs or not (an address
// it would only have once started); otherwise its address on its network.
func (l labels) backend(port int, wakes bool) (string, error) {
	if v, ok := l.get(LabelBackend); ok {
		if host, p, err := net.SplitHostPort(v); err != nil || host == "" || !validPort(p) {
			return "", l.fail(LabelBackend, "%q is not host:port", v)
		}
		return v, nil
	}
	if wakes {
		if err := l.userNetwork(); err != nil {
			return "", err
		}
		return net.JoinHostPort(l.c.name(), strconv.Itoa(port)), nil
	}
	ip, err := l.address()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(ip, strconv.Itoa(port)), nil
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// userNetwork checks that a waking container's name resolves: it is on a network other than
// the defaults (the network label's, when it has one).
func (l labels) userNetwork() error {
	names := l.networks()
	if want, ok := l.get(LabelNetwork); ok {
		names = slices.DeleteFunc(names, func(n string) bool { return n != want })
	}
	if slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(defaultNetworks, n) }) {
		return nil
	}
	return l.fail(LabelBackend, "is needed: a waking container has no address while stopped, and its name resolves only on a user-defined network (it is on %s)", strings.Join(l.networks(), ", "))
}

// address is the running container's IP on the network label's network, or on its only one.
func (l labels) address() (string, error) {
	nets := l.c.NetworkSettings.Networks
	if want, ok := l.get(LabelNetwork); ok {
		n, on := nets[want]
		switch {
		case !on:
			return "", l.fail(LabelNetwork, "the container is not on %q (it is on %s)", want, strings.Join(l.networks(), ", "))
		case n.ip() == "":
			return "", l.fail(LabelNetwork, "the container has no address on %q", want)
		}
		return n.ip(), nil
	}
	var addressed []string
	for _, name := range l.networks() {
		if nets[name].ip() != "" {
			addressed = append(addressed, name)
		}
	}
	switch len(addressed) {
	case 0:
		return "", l.fail(LabelBackend, "is needed: the container has no address of its own (network host or none?)")
	case 1:
		return nets[addressed[0]].ip(), nil
	}
	return "", l.fail(LabelNetwork, "is needed: the container is on %s", strings.Join(addressed, ", "))
}

// networks are the names of the container's networks, sorted.
func (l labels) networks() []string {
	names := make([]string, 0, len(l.c.NetworkSettings.Networks))
	for name := range l.c.NetworkSettings.Networks {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// ip is the network's IPv4 address, or its IPv6 one.
func (n network) ip() string {
	if n.IPAddress != "" {
		return n.IPAddress
	}
	return n.GlobalIPv6Address
}
