package play

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/moonbridge/moonbridge/mc"
)

// A Tracker's state can move to another process (a binary upgrade moves a session with its
// sockets): MarshalState writes it between two Feeds, and RestoreState puts it into a fresh
// tracker of the same protocol there, which follows the stream on as this one would have, in
// the middle of a frame too. The protocol is not in it: the caller makes the tracker for it.
//
//	format uint8 | state uint8 | threshold int32 | flags uint8 (1 in bundle, 2 ended, 4 in body,
//	8 packet known, 16 lost) | offset, frame start int64 | length prefix (uint8 count, 3 bytes) |
//	left, want int32 | head (uint16 count, bytes)
//
// big-endian, nothing after the last field. A lost tracker moves as lost (its error's text is
// not kept).

// trackerStateFormat is the version of that format.
const trackerStateFormat uint8 = 1

const (
	trackInBundle = 1 << iota
	trackEnded
	trackInBody
	trackKnown
	trackLost
	trackFlags = trackInBundle | trackEnded | trackInBody | trackKnown | trackLost
)

// errLostBefore is the error of a tracker that was lost before it moved.
var errLostBefore = errors.New("the stream was lost before the session moved")

// StateError says why a tracker's state cannot be read; the session does not move.
type StateError struct{ Reason string }

func (e *StateError) Error() string { return "play: tracker state: " + e.Reason }

// MarshalState is the tracker's state (above).
func (t *Tracker) MarshalState() []byte {
	flags := uint8(0)
	for bit, on := range map[uint8]bool{trackInBundle: t.inBundle, trackEnded: t.ended, trackInBody: t.inBody, trackKnown: t.known, trackLost: t.err != nil} {
		if on {
			flags |= bit
		}
	}
	b := []byte{trackerStateFormat, byte(t.state)}
	b = binary.BigEndian.AppendUint32(b, uint32(t.threshold))
	b = append(b, flags)
	b = binary.BigEndian.AppendUint64(b, uint64(t.offset))
	b = binary.BigEndian.AppendUint64(b, uint64(t.frameStart))
	b = append(append(b, byte(t.lenN)), t.lenBuf[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(t.left))
	b = binary.BigEndian.AppendUint32(b, uint32(t.want))
	b = binary.BigEndian.AppendUint16(b, uint16(len(t.head)))
	return append(b, t.head...)
}

// trackerFixed is the state's length before the head's bytes.
const trackerFixed = 1 + 1 + 4 + 1 + 8 + 8 + 1 + 3 + 4 + 4 + 2

// RestoreState puts a state MarshalState wrote into t, a tracker fresh from NewTracker that has
// been fed nothing. A state of another format, cut short, with bytes after it, or one Feed
// could not have left is a *StateError, and t is unchanged.
func (t *Tracker) RestoreState(b []byte) error {
	if len(b) < trackerFixed {
		return &StateError{Reason: fmt.Sprintf("%d bytes, shorter than the fixed part", len(b))}
	}
	if b[0] != trackerStateFormat {
		return &StateError{Reason: fmt.Sprintf("format %d; this binary reads format %d", b[0], trackerStateFormat)}
	}
	flags := b[6]
	n := Tracker{ids: t.ids, state: State(b[1]), threshold: int32(binary.BigEndian.Uint32(b[2:])),
		inBundle: flags&trackInBundle != 0, ended: flags&trackEnded != 0, inBody: flags&trackInBody != 0,
		known: flags&trackKnown != 0, offset: int64(binary.BigEndian.Uint64(b[7:])),
		frameStart: int64(binary.BigEndian.Uint64(b[15:])), lenN: int(b[23]),
		left: int(int32(binary.BigEndian.Uint32(b[27:]))), want: int(int32(binary.BigEndian.Uint32(b[31:])))}
	copy(n.lenBuf[:], b[24:27])
	head := b[trackerFixed:]
	if int(binary.BigEndian.Uint16(b[35:])) != len(head) {
		return &StateError{Reason: fmt.Sprintf("a head of %d bytes where %d follow", binary.BigEndian.Uint16(b[35:]), len(head))}
	}
	if flags&trackLost != 0 { // Feed reads nothing more: only the error's fields matter
		lost := Tracker{ids: t.ids, state: n.state, threshold: -1, frameStart: n.frameStart}
		lost.err = &StreamError{Offset: n.frameStart, State: n.state, Err: errLostBefore}
		lost.head = lost.small[:0]
		*t = lost
		return nil
	}
	if why := n.unreachable(flags, len(head)); why != "" {
		return &StateError{Reason: "a state Feed cannot leave: " + why}
	}
	n.head = n.small[:0]
	if len(head) > len(n.small) {
		n.head = make([]byte, 0, n.want)
	}
	n.head = append(n.head, head...)
	*t = n
	return nil
}

// unreachable says why the fields read (flags, a head of headLen bytes) are no state Feed
// leaves between two calls, so that the restored tracker can never read past a frame, loop
// without consuming or index out of its arrays; "" when they are one.
func (n *Tracker) unreachable(flags uint8, headLen int) string {
	switch {
	case flags&^trackFlags != 0:
		return fmt.Sprintf("unknown flags %#x", flags)
	case n.state > Play:
		return fmt.Sprintf("state %d", n.state)
	case n.threshold < -1:
		return fmt.Sprintf("threshold %d", n.threshold)
	case n.offset < 0 || n.frameStart < 0 || n.frameStart > n.offset:
		return "offsets"
	case n.lenN < 0 || n.lenN >= len(n.lenBuf) || (n.inBody && n.lenN != 0):
		return fmt.Sprintf("%d length prefix bytes", n.lenN)
	case !n.inBody:
		if n.known || headLen != 0 || n.left != 0 {
			return "a frame's body outside a frame"
		}
		return ""
	case n.left < 0 || n.left > mc.MaxFrameLen || headLen > headCap:
		return "the body's lengths"
	case !n.known && (n.want <= headLen || n.want > headLen+n.left || n.want > headCap):
		return fmt.Sprintf("the next look at %d of a %d-byte head, %d to come", n.want, headLen, n.left)
	}
	return ""
}
