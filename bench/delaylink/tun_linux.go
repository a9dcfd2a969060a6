package delaylink

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// OpenTUN creates the TUN device name (IFF_TUN, no packet information header) in the network
// namespace of the calling thread (netns.NS.Do) and returns its file descriptor, non-blocking,
// for Start: each read is one IP packet the namespace sent through the device, each write one
// it receives. The device lives as long as the descriptor is open; bring it up and give it an
// address with ip. Needs CAP_NET_ADMIN.
func OpenTUN(name string) (int, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return -1, fmt.Errorf("delaylink: open /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("delaylink: TUN %q: %w", name, err)
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("delaylink: TUNSETIFF %s: %w", name, err)
	}
	return fd, nil
}
