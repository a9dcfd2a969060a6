package ws

import (
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
	c    *Conn
	half time.Duration

	// mu guards the fields below. A tick can overlap the previous one when
	// that one is stuck writing a ping to a peer that stopped reading; the
	// overlapping tick is what notices the dead peer and closes.
	mu      sync.Mutex
	timer   Timer
	stopped bool
	silence silence
}

// startKeepalive arms the task, or returns a stopped one when the interval
// is zero.
func startKeepalive(c *Conn) *keepalive {
	k := &keepalive{c: c, half: c.cfg.PingInterval / 2, silence: newSilence(c.cfg)}
	if k.half <= 0 {
		k.stopped = true
		return k
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
	dead := k.peerDead()
	k.mu.Unlock()

	if dead != nil {
		dead.log(k.c.log.logger())
		_ = k.c.CloseWithCode(CloseGoingAway, dead.Reason())
		return
	}
	// The ping is itself a write: it sets the flag, so the next tick sees
	// a write and an idle connection pings once per interval.
	if !k.c.wrote.Swap(false) {
		_ = k.c.writeControl(OpPing, nil)
	}
}

// peerDead reads what the Read side did in the half interval that passed and returns the
// error of a dead peer, or nil. A half interval with no Read waiting does not count: the reader
// was busy elsewhere (a relay held back by a stalled backend), so the silence says nothing about
// the peer.
func (k *keepalive) peerDead() *DeadPeerError {
	state := k.c.reader.Load()
	heard := state&readerHeard != 0
	if heard {
		// A failed swap means the reader moved on, having heard: either way, alive. A reader
		// entering Read between the load and the swap may put the bit back: one more half
		// interval of grace, never a wrong close.
		k.c.reader.CompareAndSwap(state, state&^readerHeard)
	}
	return k.silence.pass(heard, state&readerWaiting != 0, k.half)
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
