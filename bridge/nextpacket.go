package bridge

import (
	"bufio"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// nextPacketWait bounds how long a session with early data waits, after the handshake, for the
// game's next packet. Vanilla writes the handshake and Login Start (or the status request)
// microseconds apart, but as two writes, so the bridge's read of the handshake often returns it
// alone (a third of the joins of bench/results/2026-12-01-join-time-early-data.md). Waiting
// pays while it is shorter than the round trip it saves, one between the bridge and the server,
// through a CDN tens of milliseconds to about 100: a packet later than that costs more waiting
// than it saves. A game that sends none in time (none we know of) is upgraded after the wait,
// with what it sent, as without it.
const nextPacketWait = 100 * time.Millisecond

// awaitNextPacket reads on, for early data, until r holds the whole packet the game sends
// behind its handshake (every handshake asks for status, login or transfer), so that the
// upgrade request carries it too. The server needs it before it gets anywhere: it answers a
// server-list ping once it has the status request (from its cache or the backend's answer), and
// a backend answers a login once it has Login Start; without it in the request, either waits
// the round trip of sending it after the 101.
//
// It stops, leaving in r what it read, when the packet is whole, when the session's wait
// (Bridge.nextWait, or the rest of the hello wait if that is shorter) or the game's stream
// ends, and as soon as the packet's length says that it would not fit in an offer with the
// handshake (ws.MaxEarlyData) or is no length: r holds then what the offer would be without
// the wait. The packet is a frame without compression, which a login turns on only after it.
func (s *session) awaitNextPacket(r *bufio.Reader) {
	room := ws.MaxEarlyData - len(s.hello.Handshake.Raw)
	s.game.SetReadDeadline(earliest(s.helloBy, time.Now().Add(s.b.nextWait)))
	defer s.game.SetReadDeadline(s.helloBy)
	for need := frameNeed(buffered(r), room); need > 0; need = frameNeed(buffered(r), room) {
		if _, err := r.Peek(need); err != nil {
			return // the wait or the stream ended
		}
	}
}

// frameNeed is how many bytes b must have for the frame at its start to be whole, or 0 when it
// is whole or will not be waited for: longer than room, or a length that is no VarInt.
func frameNeed(b []byte, room int) int {
	size, n, err := mc.ReadVarInt(b)
	switch {
	case err == mc.ErrNeedMore && len(b) < room:
		return len(b) + 1
	case err != nil || size < 0 || n+int(size) > room || n+int(size) <= len(b):
		return 0
	}
	return n + int(size)
}

// buffered is what r holds, left in it.
func buffered(r *bufio.Reader) []byte {
	b, _ := r.Peek(r.Buffered())
	return b
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
