package relay

import (
	"sync"

	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc/play"
)

// maxMovePackets bounds the packets the proxy puts into a player's stream at once (a Store
// Cookie and a Transfer, or a Disconnect): the room a loop leaves behind each backend read.
const maxMovePackets = 2048

// mover follows the backend's stream to the player (a play.Tracker, from the login state on)
// so that packets of the proxy's own can go in between two of the backend's: a Transfer on a
// drain, or a Disconnect that tells the player why the session ends. A packet is built when it
// can go out, for the state and compression the stream is in then, and goes out at once when
// the stream is at a boundary, else right behind the backend's packet that is partly through.
//
// On an event loop the mover runs on the loop goroutine only (moverCodec, and loop.Session.Send);
// on the pumps, mu orders the down pump's writes and a move from the drain.
type mover struct {
	mu       sync.Mutex
	t        *play.Tracker
	pending  func(*play.Tracker) []byte // waits for the next boundary
	done     func(sent bool)            // pending's: called once, when it went out or never can
	joinHost string                     // the handshake's host, for a bridged player's Transfer
}

// newMover is the mover of a login to protocol at joinHost, or nil when the protocol has no
// Transfer or its packets are not known.
func newMover(protocol int32, joinHost string) *mover {
	t, err := play.NewTracker(protocol)
	if err != nil {
		return nil
	}
	return &mover{t: t, joinHost: joinHost}
}

// request asks for build's packets to go out: now when the stream is at a boundary (the bytes
// are returned, for the caller to write, and done(true) is the caller's once written), behind the
// backend's packet that is partly through otherwise (nil is returned; done runs then), and never
// once the tracker has lost the stream (done(false) at once). A request replaces one still
// waiting, whose done gets false. A stream that has ended for the player (the backend's
// Disconnect, or a Transfer of the proxy's own already put in) takes nothing more.
func (m *mover) request(build func(*play.Tracker) []byte, done func(bool)) (now []byte) {
	if m.pending != nil {
		m.settle(false)
	}
	switch {
	case m.t.Movable():
		return m.put(build)
	case m.t.Err() != nil || m.t.Ended():
		done(false)
	default:
		m.pending, m.done = build, done
	}
	return nil
}

// split feeds b, bytes of the backend's stream on their way to the player, and returns where
// the waiting packets go in: at, the length of b's part before them, and the packets; nil when
// none are waiting or b holds no boundary for them.
func (m *mover) split(b []byte) (at int, packets []byte) {
	if m.pending == nil {
		m.t.Feed(b, false) // an error leaves the tracker lost: the stream just goes on
		return len(b), nil
	}
	at, err := m.t.Feed(b, true)
	if err != nil {
		m.settle(false)
		return len(b), nil
	}
	if !m.t.Movable() {
		return len(b), nil
	}
	packets = m.put(m.pending)
	m.t.Feed(b[at:], false)
	return at, packets
}

// put builds the packets that go in now and has the tracker read them too, so that it follows
// what the player gets: after a Transfer of the proxy's own, the stream has ended for it.
func (m *mover) put(build func(*play.Tracker) []byte) []byte {
	packets := build(m.t)
	m.t.Feed(packets, false)
	return packets
}

// settle ends the waiting request: sent or not.
func (m *mover) settle(sent bool) {
	done := m.done
	m.pending, m.done = nil, nil
	if done != nil {
		done(sent)
	}
}

// moverCodec is the backend side's codec on an event loop: its Open feeds the mover and puts
// the waiting packets in at a boundary, in place (a loop.Grower: the loop leaves room behind
// each read); its Seal is the inner codec's (the player's name, while not known).
type moverCodec struct {
	loop.Codec
	m *mover
}

func (c moverCodec) Open(in []byte) (int, []byte, error) {
	n := len(in)
	at, packets := c.m.split(in)
	if packets == nil {
		return n, nil, nil
	}
	if n+len(packets) > cap(in) { // build's packets are bounded by maxMovePackets: not here
		c.m.settle(false)
		return n, nil, nil
	}
	in = in[:n+len(packets)]
	copy(in[at+len(packets):], in[at:n])
	copy(in[at:], packets)
	c.m.settle(true)
	return n + len(packets), nil, nil
}

func (moverCodec) Growth() int { return maxMovePackets }

// sendOnLoop is request for a session on an event loop: it runs on the session's loop.
func (m *mover) sendOnLoop(ls *loop.Session, build func(*play.Tracker) []byte, done func(bool)) {
	ls.Send(func() []byte {
		now := m.request(build, done)
		if now != nil {
			done(true) // the loop writes it right after, or holds it for a slow player
		}
		return now
	})
}

// pumpWriter is the down pump's write through the mover: write sends buf[headroom:headroom+n]
// to the player (encrypting it first when the login turned the cipher on).
type pumpWriter struct {
	m     *mover
	write func(buf []byte, n int) error
}

func (w pumpWriter) Write(buf []byte, n int) error {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	at, packets := w.m.split(buf[headroom : headroom+n])
	if packets == nil {
		return w.write(buf, n)
	}
	if at > 0 {
		if err := w.write(buf, at); err != nil {
			w.m.settle(false)
			return err
		}
	}
	err := w.writePackets(packets)
	w.m.settle(err == nil)
	if err != nil || at == n {
		return err
	}
	// The rest, with the bytes already written in front of it as its headroom.
	return w.write(buf[at:], n-at)
}

func (w pumpWriter) writePackets(packets []byte) error {
	buf := make([]byte, headroom+len(packets))
	copy(buf[headroom:], packets)
	return w.write(buf, len(packets))
}

// send is request for a session on the pumps: from the drain's goroutine, in order with the
// down pump's writes.
func (w pumpWriter) send(build func(*play.Tracker) []byte, done func(bool)) {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	if now := w.m.request(build, done); now != nil {
		done(w.writePackets(now) == nil)
	}
}

// feed follows bytes of the backend's stream that went to the player outside the relay (what
// the backend sent during the forwarding); a nil mover takes nothing.
func (m *mover) feed(b []byte) {
	if m != nil {
		m.t.Feed(b, false)
	}
}

// endMoves settles a move still waiting once the session has ended (its data path calls the
// mover no more).
func (s *session) endMoves() {
	if m := s.mover; m != nil {
		m.mu.Lock()
		m.settle(false)
		m.mu.Unlock()
	}
}
