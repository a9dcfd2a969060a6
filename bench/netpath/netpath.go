// Package netpath is the benchmark's two hosts and the path between them: a player host and an
// edge host, each a network namespace (bench/netns), joined only by a delaylink.Link, which
// stands for what a CDN puts between a player and the edge proxy: a round-trip time.
//
//	player namespace                                              edge namespace
//	game client, bridge ─ tun mbwire ══ Link, RTT/2 each way ══ tun mbwire ─ proxy, backend
//	  10.77.0.1/24 (PlayerAddr)                                   10.77.0.2/24 (EdgeAddr)
//
// Each namespace has its own loopback besides: the bridge's local port on the player's, the
// backend behind the proxy on the edge's. The devices carry IPv4 alone (IPv6 is off on them,
// so that no router solicitation or neighbour discovery crosses the link). Open needs root.
package netpath

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/moonbridge/moonbridge/bench/delaylink"
	"github.com/moonbridge/moonbridge/bench/netns"
)

// The addresses of the two hosts on the link, and its device's name in both namespaces.
const (
	PlayerAddr = "10.77.0.1"
	EdgeAddr   = "10.77.0.2"
	Device     = "mbwire"
	prefixLen  = "/24"
)

// Path is the two namespaces and the link; Close removes them.
type Path struct {
	Player, Edge *netns.NS
	Link         *delaylink.Link
}

// Open creates the namespaces NAME-player and NAME-edge, a TUN device in each with its address,
// and the link between them with a round trip of rtt.
func Open(name string, rtt time.Duration) (_ *Path, err error) {
	p := &Path{}
	defer func() {
		if err != nil {
			err = errors.Join(err, p.Close())
		}
	}()
	if p.Player, err = netns.Create(name + "-player"); err != nil {
		return nil, err
	}
	if p.Edge, err = netns.Create(name + "-edge"); err != nil {
		return nil, err
	}
	a, err := device(p.Player, PlayerAddr)
	if err != nil {
		return nil, err
	}
	b, err := device(p.Edge, EdgeAddr)
	if err != nil {
		unix.Close(a)
		return nil, err
	}
	if p.Link, err = delaylink.Start(a, b, rtt/2); err != nil {
		unix.Close(a)
		unix.Close(b)
		return nil, err
	}
	return p, nil
}

// device opens the TUN device in ns and gives it addr; it returns its descriptor.
func device(ns *netns.NS, addr string) (int, error) {
	tun := -1
	err := ns.Do(func() error {
		var err error
		if tun, err = delaylink.OpenTUN(Device); err != nil {
			return err
		}
		return os.WriteFile("/proc/sys/net/ipv6/conf/"+Device+"/disable_ipv6", []byte("1"), 0)
	})
	if err == nil {
		err = errors.Join(ns.IP("addr", "add", addr+prefixLen, "dev", Device), ns.IP("link", "set", Device, "up"))
	}
	if err != nil {
		if tun >= 0 {
			unix.Close(tun)
		}
		return -1, fmt.Errorf("netpath: %s in %s: %w", Device, ns.Name, err)
	}
	return tun, nil
}

// SetRTT changes the round trip of packets sent from now on.
func (p *Path) SetRTT(rtt time.Duration) { p.Link.SetOneWay(rtt / 2) }

// RTT is the round trip packets sent now get.
func (p *Path) RTT() time.Duration { return 2 * p.Link.OneWay() }

// Close stops the link (its devices go with it) and deletes the namespaces.
func (p *Path) Close() error {
	var errs []error
	if p.Link != nil {
		errs = append(errs, p.Link.Close())
	}
	for _, ns := range []*netns.NS{p.Player, p.Edge} {
		if ns != nil {
			errs = append(errs, ns.Close())
		}
	}
	return errors.Join(errs...)
}
