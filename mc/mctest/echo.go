// Package mctest holds Minecraft backends for tests: an echo after the handshake.
package mctest

import (
	"bufio"
	"io"
	"net"

	"github.com/moonbridge/moonbridge/mc"
)

// Echo is a backend's side of one connection: it reads the Minecraft handshake and sends back
// every byte after it (Login Start, play), until either side closes.
func Echo(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	if _, err := mc.ReadHello(r, 0); err == nil {
		io.Copy(conn, r)
	}
}

// ServeEcho runs Echo for each connection ln accepts, until ln fails; for a child process
// that is the backend (a test's ServeAt ends its connections itself).
func ServeEcho(ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return err
		}
		go Echo(conn)
	}
}
