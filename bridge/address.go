package bridge

import (
	"net"
	"net/netip"
	"strconv"
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
