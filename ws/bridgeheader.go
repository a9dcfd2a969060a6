package ws

import (
	"fmt"
	"net/netip"
)

// BridgeHeader is the request header in which moonbridge's client bridge tells the proxy the
// local address (ip:port) its game client reached it on, so that a transfer on drain points the
// game back at its own bridge, which opens a new WebSocket to a live instance. The value is an
// IP literal and a port, IPv6 in brackets: "127.0.0.1:25565", "[::1]:25565".
const BridgeHeader = "Moonbridge-Bridge"

// BridgeHeaderError is a BridgeHeader value that ParseBridgeHeader refuses.
type BridgeHeaderError struct {
	Value  string // as received
	Reason string
}

// maxQuotedValue bounds how much of a refused value, which anyone can send, an error repeats.
const maxQuotedValue = 64

func (e *BridgeHeaderError) Error() string {
	return fmt.Sprintf("ws: %s header %.*q: %s", BridgeHeader, maxQuotedValue, e.Value, e.Reason)
}

// ParseBridgeHeader reads a BridgeHeader value: an IP literal (no host name, no IPv6 zone) and
// a port from 1 to 65535, nothing else. An IPv4-mapped IPv6 address comes back as IPv4. An
// unspecified or multicast address is refused too: no TCP connection is accepted on one. Any
// refusal is a *BridgeHeaderError.
func ParseBridgeHeader(v string) (netip.AddrPort, error) {
	ap, err := netip.ParseAddrPort(v)
	if err != nil {
		return netip.AddrPort{}, &BridgeHeaderError{Value: v, Reason: "not an IP literal and a port"}
	}
	ip := ap.Addr().Unmap()
	switch {
	case ip.Zone() != "":
		return netip.AddrPort{}, &BridgeHeaderError{Value: v, Reason: "an IPv6 zone names a local interface"}
	case ap.Port() == 0:
		return netip.AddrPort{}, &BridgeHeaderError{Value: v, Reason: "port 0"}
	case ip.IsUnspecified() || ip.IsMulticast():
		return netip.AddrPort{}, &BridgeHeaderError{Value: v, Reason: "not an address a connection is accepted on"}
	}
	return netip.AddrPortFrom(ip, ap.Port()), nil
}
