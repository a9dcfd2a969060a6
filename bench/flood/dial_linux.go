package flood

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// bindNoPort has the kernel pick the source port at connect, per destination, instead of at
// bind, per source address: a source address then runs out of ports only towards one target.
func bindNoPort(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
