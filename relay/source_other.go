//go:build !linux

package relay

import (
	"net"

	"github.com/moonbridge/moonbridge/internal/pipe"
)

// leanSourceFor: reading without a held buffer is built for Linux only (it reads the socket
// with syscall.Read in the poller's callback); elsewhere pumps hold their buffer.
func leanSourceFor(net.Conn) pipe.Source { return nil }
