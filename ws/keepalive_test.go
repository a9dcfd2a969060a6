package ws

import (
	"math/rand/v2"
	"testing"
	"time"
)

const testInterval = 30 * time.Second

func keepaliveConn(deadPeerIntervals int) (*Conn, *scriptConn, *fakeClock) {
	clock := &fakeClock{}
	sc := &scriptConn{clock: clock}
	cfg := DefaultConfig()
	cfg.PingInterval, cfg.DeadPeerIntervals, cfg.Clock = testInterval, deadPeerIntervals, clock
	return NewConn(sc, RoleServer, cfg), sc, clock
}

// TestKeepaliveBounds writes at random moments, then idles, and checks the
// two bounds of docs/design.md ("Rules of the data path", Keepalive) on the
// recorded (fake) write times: never silent longer than the interval, never
// a ping sooner than half of it after a write; and an idle connection pings
// once per interval, not per tick.
func TestKeepaliveBounds(t *testing.T) {
	c, sc, clock := keepaliveConn(-1)
	defer c.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	for range 400 {
		clock.Advance(time.Duration(rng.IntN(400)) * 100 * time.Millisecond)
		if rng.IntN(3) == 0 {
			if _, err := c.Write([]byte{1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	idleFrom := clock.Now()
	clock.Advance(5 * testInterval)

	var prev time.Duration // the connection's start counts as the last sound
	pings := 0
	for _, w := range sc.writesWithOp(t) {
		if gap := w.at - prev; gap > testInterval {
			t.Errorf("silent for %v before the frame at %v; interval %v", gap, w.at, testInterval)
		}
		if w.op == OpPing {
			pings++
			if prev != 0 && w.at-prev < testInterval/2 {
				t.Errorf("ping at %v only %v after the write at %v", w.at, w.at-prev, prev)
			}
			if w.at > idleFrom+testInterval && w.at-prev != testInterval {
				t.Errorf("idle pings %v apart, want one per interval", w.at-prev)
			}
		}
		prev = w.at
	}
	if pings == 0 {
		t.Fatal("no ping at all")
	}
}

func TestKeepaliveDisabled(t *testing.T) {
	clock := &fakeClock{}
	sc := &scriptConn{clock: clock}
	c := NewConn(sc, RoleServer, noKeepalive()) // PingInterval 0
	defer c.Close()
	clock.Advance(time.Hour)
	if len(sc.writes) != 0 || len(clock.timers) != 0 {
		t.Fatalf("disabled keepalive wrote %d frames, armed %d timers", len(sc.writes), len(clock.timers))
	}
}

func TestDeadPeerIsClosed(t *testing.T) {
	c, sc, clock := keepaliveConn(3)
	defer c.Close()
	c.reader.Store(readerWaiting) // as while Read waits for a peer that sends nothing
	clock.Advance(3*testInterval - time.Nanosecond)
	if sc.isClosed() {
		t.Fatal("closed before three silent intervals")
	}
	clock.Advance(time.Nanosecond)
	if !sc.isClosed() {
		t.Fatal("not closed after three silent intervals")
	}
	w := sc.written(t)
	last := w[len(w)-1]
	code, reason, _ := ParseClosePayload(last.payload)
	if last.op != OpClose || code != CloseGoingAway || len(reason) == 0 {
		t.Fatalf("last frame %+v, want a 1001 close with a reason", last)
	}
}

// A reader held back (a relay whose backend stopped reading) does not call
// Read, so the peer's frames wait in the socket unread: that silence is not
// the peer's, and the connection stays open.
func TestSilenceWhileNotReadingIsNotDeath(t *testing.T) {
	c, sc, clock := keepaliveConn(3)
	defer c.Close()
	clock.Advance(10 * testInterval)
	if sc.isClosed() {
		t.Fatal("closed as dead while nobody was reading")
	}
	c.reader.Store(readerWaiting) // the reader is back and waits: now silence counts
	clock.Advance(3 * testInterval)
	if !sc.isClosed() {
		t.Fatal("not closed after three silent intervals with a Read waiting")
	}
}

func TestLivePeerStaysOpen(t *testing.T) {
	c, sc, clock := keepaliveConn(3)
	defer c.Close()
	buf := make([]byte, 16)
	for range 30 { // 10 intervals, the peer speaking every 20 s
		sc.push(frame(true, OpBinary, []byte{1}, testKey))
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		clock.Advance(20 * time.Second)
	}
	if sc.isClosed() {
		t.Fatal("a peer that keeps sending was closed")
	}
}
