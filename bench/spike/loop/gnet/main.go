//go:build linux

// Command gnet is the spike's relay on gnet v2's event loops: a gnet Client (loops without a
// listener) adopts the backend connection dialed elsewhere (Client.Enroll), and the player's
// connection joins the same loop (EventLoop.Enroll, gnet issue #689). gnet reads into the
// loop's shared buffer; Conn.Write writes straight to the socket and keeps only what a partial
// write leaves, in the connection's outbound ring buffer.
//
// What gnet does not offer (the record's gates): a read of 0 bytes closes the connection, so a
// half-close cannot be passed on (OnClose closes the peer); reading a source cannot be paused
// while its destination is full, so a stalled reader grows the outbound buffer without bound.
package main

import (
	"context"
	"log"
	"net"

	"github.com/panjf2000/gnet/v2"

	"github.com/moonbridge/moonbridge/bench/spike/loop/internal/spike"
)

// pair is a session; both conns live on one loop, so the callbacks touch it without locks.
type pair struct{ backend, player gnet.Conn }

func (p *pair) peer(c gnet.Conn) gnet.Conn {
	if c == p.player {
		return p.backend
	}
	return p.player
}

type relay struct{ gnet.BuiltinEventEngine }

// OnOpen runs on the loop when the player's conn is registered: the pair is complete.
func (r *relay) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	if p, ok := c.Context().(*pair); ok && p.backend != nil && p.player == nil {
		p.player = c
		if p.backend.InboundBuffered() > 0 { // the backend spoke first
			r.OnTraffic(p.backend)
		}
	}
	return nil, gnet.None
}

func (r *relay) OnTraffic(c gnet.Conn) gnet.Action {
	p := c.Context().(*pair)
	if p.player == nil {
		return gnet.None // the bytes stay in c's inbound buffer until the player is registered
	}
	b, _ := c.Next(-1)
	if _, err := p.peer(c).Write(b); err != nil {
		return gnet.Close
	}
	return gnet.None
}

func (r *relay) OnClose(c gnet.Conn, _ error) gnet.Action {
	p := c.Context().(*pair)
	if peer := p.peer(c); peer != nil {
		p.player, p.backend = nil, nil
		_ = c.EventLoop().Close(peer)
	}
	return gnet.None
}

func main() {
	cfg := spike.Parse()
	cli, err := gnet.NewClient(&relay{}, gnet.WithNumEventLoop(cfg.Loops), gnet.WithLockOSThread(cfg.LockThread),
		gnet.WithReadBufferCap(64<<10), gnet.WithTCPNoDelay(gnet.TCPNoDelay))
	if err != nil {
		log.Fatal(err)
	}
	if err := cli.Start(); err != nil {
		log.Fatal(err)
	}
	spike.Serve(cfg, func(player, backend net.Conn) error {
		p := &pair{}
		bc, err := cli.EnrollContext(backend, p)
		if err != nil {
			player.Close()
			return err
		}
		p.backend = bc
		res, err := bc.EventLoop().Enroll(gnet.NewContext(context.Background(), p), player)
		if err != nil {
			player.Close()
			return err
		}
		if r := <-res; r.Err != nil {
			return r.Err
		}
		return nil
	})
}
