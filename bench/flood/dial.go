package flood

import (
	"context"
	"net"
	"net/netip"
)

// dialFrom connects to target from src (port picked by the kernel).
func dialFrom(ctx context.Context, src netip.Addr, target string) (*net.TCPConn, error) {
	d := net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(src, 0)), Control: bindNoPort}
	c, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		return nil, err
	}
	return c.(*net.TCPConn), nil
}
