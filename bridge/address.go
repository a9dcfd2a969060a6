package bridge

import (
	"net"
	"net/netip"
	"strconv"

	"github.com/moonbridge/moonbridge/ws"
)

// GameAddress is what a player types into Minecraft's server list to reach a bridge bound to
// addr: "localhost:25565" for a loopback or wildcard address, else the address itself.
func GameAddress(addr net.Addr) string {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return addr.String()
	}
	ip := ap.Addr().Unmap()
	port := strconv.Itoa(int(ap.Port()))
	if ip.IsLoopback() || ip.IsUnspecified() {
		return "localhost:" + port
	}
	return net.JoinHostPort(ip.String(), port)
}

// bridgeAddress is local, the address a game connection reached the bridge on, as
// ws.BridgeHeader carries it: for a listener on 0.0.0.0 the concrete address the game used.
// False for one the proxy would refuse (an IPv6 zone): the request then goes without it.
func bridgeAddress(local net.Addr) (netip.AddrPort, bool) {
	ap, err := ws.ParseBridgeHeader(local.String())
	return ap, err == nil
}
