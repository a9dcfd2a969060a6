//go:build linux

// Command nbio is the spike's relay on nbio's pollers: both connections, dialed elsewhere, are
// adopted with Engine.AddConn (which dups the fd and closes the net.Conn); nbio reads into the
// poller's shared buffer (OnData) and Conn.Write writes straight to the socket, keeping only
// what a partial write leaves in a list of pooled buffers.
//
// What nbio does not offer (the record's gates): a read of 0 bytes or EPOLLRDHUP closes the
// connection, so a half-close cannot be passed on; reading a source cannot be paused while its
// destination is full (MaxWriteBufferSize closes the connection instead), so a stalled reader
// grows the write list without bound; a connection goes to the poller fd % NPoller, so with
// more than one poller the two sockets of a session may sit on different loops.
package main

import (
	"log"
	"net"

	"github.com/lesismal/nbio"

	"github.com/moonbridge/moonbridge/bench/spike/loop/internal/spike"
)

func main() {
	cfg := spike.Parse()
	g := nbio.NewEngine(nbio.Config{NPoller: cfg.Loops, LockPoller: cfg.LockThread, ReadBufferSize: 64 << 10})
	g.OnData(func(c *nbio.Conn, data []byte) {
		if _, err := c.Session().(*nbio.Conn).Write(data); err != nil {
			c.Close()
		}
	})
	g.OnClose(func(c *nbio.Conn, _ error) {
		c.Session().(*nbio.Conn).Close()
	})
	if err := g.Start(); err != nil {
		log.Fatal(err)
	}
	spike.Serve(cfg, func(player, backend net.Conn) error {
		pc, err := nbio.NBConn(player)
		if err != nil {
			backend.Close()
			return err
		}
		bc, err := nbio.NBConn(backend)
		if err != nil {
			pc.Close()
			return err
		}
		pc.SetSession(bc)
		bc.SetSession(pc)
		// The backend first: only the player speaks first, and its bytes must find the backend
		// on a poller (Write on a conn not yet added would find no poller).
		if _, err := g.AddConn(bc); err != nil {
			pc.Close()
			return err
		}
		_, err = g.AddConn(pc)
		return err
	})
}
