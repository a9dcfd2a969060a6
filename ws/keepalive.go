package ws

import (
	"fmt"
	"sync"
	"time"
)

// keepalive is the task of docs/design.md ("Rules of the data path",
// Keepalive): every half interval it pings if nothing was written in the
// half interval before, and it closes the connection when the peer sent
// nothing for DeadPeerIntervals intervals while a Read was waiting.
// Writes only set Conn.wrote; the task costs nothing per write. It runs as
// a re-armed timer callback, so an idle connection holds no goroutine.
type keepalive struct {
	c         *Conn
	half      time.Duration
	deadAfter int // silent half intervals before the peer counts as dead; 0: never

	// mu guards the fields below. A tick can overlap the previous one when
	// that one is stuck writing a ping to a peer that stopped reading; the
	// overlapping tick is what notices the dead peer and closes.
	mu          sync.Mutex
	timer       Timer
	stopped     bool
	silentHalfs int
}

// startKeepalive arms the task, or returns a stopped one when the interval
// is zero.
func startKeepalive(c *Conn) *keepalive {
	k := &keepalive{c: c, half: c.cfg.PingInterval / 2}
	if k.half <= 0 {
		k.stopped = true
		return k
	}
	if c.cfg.DeadPeerIntervals > 0 {
		k.deadAfter = 2 * c.cfg.DeadPeerIntervals
	}
	k.mu.Lock() // the first tick may fire before AfterFunc returns
	defer k.mu.Unlock()
	k.timer = c.cfg.Clock.AfterFunc(k.half, k.tick)
	return k
}

func (k *keepalive) tick() {
	k.mu.Lock()
	if k.stopped {
		k.mu.Unlock()
		return
	}
	k.timer.Reset(k.half) // re-armed first, so ticks keep their period
	dead, silent := k.peerDead()
	k.mu.Unlock()

	if dead {
		reason := fmt.Sprintf("no frame from the peer for %s", silent)
		k.c.log.Info().Str("reason", reason).Msg("ws: closing dead connection")
		_ = k.c.CloseWithCode(CloseGoingAway, reason)
		return
	}
	// The ping is itself a write: it sets the flag, so the next tick sees
	// a write and an idle connection pings once per interval.
	if !k.c.wrote.Swap(false) {
		_ = k.c.writeControl(OpPing, nil)
	}
}

// peerDead counts consecutive half intervals in which nothing arrived while
// a Read was waiting for it, and returns whether that makes the peer dead,
// and for how long it was silent. A half interval with no Read waiting does
// not count: the reader was busy elsewhere (a relay held back by a stalled
// backend), so the silence says nothing about the peer.
func (k *keepalive) peerDead() (bool, time.Duration) {
	state := k.c.reader.Load()
	if state&readerHeard != 0 {
		// A failed swap means the reader moved on, having heard: either way, alive. A reader
		// entering Read between the load and the swap may put the bit back: one more half
		// interval of grace, never a wrong close.
		k.c.reader.CompareAndSwap(state, state&^readerHeard)
		k.silentHalfs = 0
		return false, 0
	}
	if state&readerWaiting == 0 {
		return false, 0
	}
	k.silentHalfs++
	return k.deadAfter > 0 && k.silentHalfs >= k.deadAfter, time.Duration(k.silentHalfs) * k.half
}

// The bits of Conn.reader.
const (
	readerHeard   = 1 << iota // a read returned bytes since the keepalive last looked
	readerWaiting             // Read waits in the socket now
)

func (k *keepalive) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stopped = true
	if k.timer != nil { // nil when the keepalive is disabled
		k.timer.Stop()
	}
}
