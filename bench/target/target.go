// Package target is the relay under test: one already running (--target, --target-pid) or
// bin/moonbridge started by the benchmark (--serve). Either way the benchmark needs an address
// for each transport and the PID whose CPU and memory it samples.
package target

import (
	"fmt"
	"net"
	"net/url"
)

// Target is a relay the clients reach.
type Target interface {
	// Endpoint is what the transport dials: host:port for tcp, a URL for ws and wss.
	Endpoint(transport string) (string, error)
	// PID is the relay's process, for CPU and RSS.
	PID() int
	// Stop ends what the benchmark started; a no-op for a relay it did not start.
	Stop() error
}

// wsPath is where moonbridge and the peers (bench/peers) serve WebSocket.
const wsPath = "/mc"

// External is a relay the benchmark did not start. Address is host:port or a ws:// or wss://
// URL; a URL is used as given, a host:port is made into a URL for ws and wss.
type External struct {
	Address string
	Pid     int
}

func (e External) PID() int { return e.Pid }

func (e External) Stop() error { return nil }

func (e External) Endpoint(transport string) (string, error) {
	u, err := url.Parse(e.Address)
	if err == nil && (u.Scheme == "ws" || u.Scheme == "wss") {
		if transport != u.Scheme {
			return "", fmt.Errorf("target %s does not serve transport %s", e.Address, transport)
		}
		return e.Address, nil
	}
	return endpointFor(transport, e.Address)
}

// endpointFor builds the dial target of transport for a relay listening on addr.
func endpointFor(transport, addr string) (string, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", fmt.Errorf("target %q: want host:port or a ws(s):// URL: %w", addr, err)
	}
	switch transport {
	case "tcp":
		return addr, nil
	case "ws", "wss":
		return transport + "://" + addr + wsPath, nil
	}
	return "", fmt.Errorf("unknown transport %q", transport)
}
