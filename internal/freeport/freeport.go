// Package freeport picks a loopback TCP address for a listener that something else opens a
// moment later (a child process given it as a flag, a reload's new listener). A port the kernel
// handed out for port 0 and took back lies in its ephemeral range, from which it also picks the
// local port of every outgoing connection and the next port-0 listener: on a busy machine one
// of those takes it meanwhile, and the listener fails with "address already in use". So the port
// is drawn below that range (Linux: net.ipv4.ip_local_port_range), where the kernel hands out
// nothing by itself; only another caller of this package, drawing at random, can collide.
package freeport

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// lowest is where the draw starts: below it live the well-known services a machine may run.
const lowest = 10000

// tries bounds the draws before Loopback falls back to a port-0 port.
const tries = 64

// rangeFile holds the ephemeral range's first and last port.
const rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// Loopback is 127.0.0.1:PORT with PORT free a moment ago: drawn below the ephemeral range where
// it can be read and leaves room, else (another system, or a range starting low) the kernel's
// port-0 pick.
func Loopback() (string, error) {
	if first, ok := ephemeralStart(); ok && first > lowest+tries {
		for range tries {
			addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(lowest+rand.IntN(first-lowest)))
			if ln, err := net.Listen("tcp", addr); err == nil {
				ln.Close()
				return addr, nil
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// ephemeralStart is the first port of the kernel's ephemeral range, where it can be read.
func ephemeralStart() (int, bool) {
	raw, err := os.ReadFile(rangeFile)
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(raw))
	if len(fields) != 2 {
		return 0, false
	}
	first, err := strconv.Atoi(fields[0])
	return first, err == nil
}
