package ws

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A LoopCodec's state can move to another process (a binary upgrade moves a session with its
// sockets): MarshalState writes it between two calls, and RestoreState puts it into a fresh
// codec there. It is the parser's (a frame's header, payload or control payload partly read,
// a fragmented message open, its length so far), whether a close frame went out, and the
// keepalive's count of silent half intervals. Settings are not in it: limits, keepalive and the
// close frames are the new codec's own. The server writes whole messages, so nothing of the
// writing side is in flight between two calls.
//
//	format uint8 | flags uint8 (1 in a frame, 2 message open, 4 close sent) | opcode uint8 |
//	remaining int64 | key uint32 | key position uint8 | message length int64 |
//	header bytes (uint8 count, bytes) | control payload (uint8 count, bytes) | silent halfs uint32
//
// big-endian, nothing after the last field.

// loopStateFormat is the version of that format.
const loopStateFormat uint8 = 1

const (
	stateInFrame = 1 << iota
	stateFragmented
	stateCloseSent
)

// StateError says why a codec's state cannot be written or read; the session does not move.
type StateError struct{ Reason string }

func (e *StateError) Error() string { return "ws: loop codec state: " + e.Reason }

func stateErrorf(format string, args ...any) error {
	return &StateError{Reason: fmt.Sprintf(format, args...)}
}

// MarshalState is the codec's state (above), for RestoreState in another process. It is the
// WebSocket's alone: the state of an inner codec (TLS) is its owner's to move (Inner). A codec
// whose stream has ended cannot move.
func (c *LoopCodec) MarshalState() ([]byte, error) {
	if c.p.err != nil {
		return nil, stateErrorf("the stream has ended")
	}
	p := &c.p
	var flags uint8
	if p.inFrame {
		flags |= stateInFrame
	}
	if p.fragmented {
		flags |= stateFragmented
	}
	if c.closeSent {
		flags |= stateCloseSent
	}
	b := []byte{loopStateFormat, flags, byte(p.op)}
	b = binary.BigEndian.AppendUint64(b, uint64(p.remaining))
	b = binary.BigEndian.AppendUint32(b, p.key)
	b = append(b, byte(p.keyPos))
	b = binary.BigEndian.AppendUint64(b, uint64(p.msgLen))
	b = append(append(b, byte(p.hdrN)), p.hdr[:p.hdrN]...)
	ctlN := 0 // outside a frame the last control payload is spent
	if p.inFrame {
		ctlN = p.ctlN
	}
	b = append(append(b, byte(ctlN)), p.ctl[:ctlN]...)
	return binary.BigEndian.AppendUint32(b, uint32(c.silence.halfs)), nil
}

// RestoreState puts a state MarshalState wrote into c, a codec fresh from NewLoopCodec (on the
// inner codec the old one's moved to, if it had one) that has parsed nothing, before it is
// registered. A state of another format,
// cut short, with bytes after it, or one this codec's parser could not have reached under its
// limits is a *StateError, and c is unchanged.
func (c *LoopCodec) RestoreState(b []byte) error {
	p, closeSent, halfs, err := readLoopState(b, c.p)
	if err != nil {
		return err
	}
	if err := checkParserState(&p); err != nil {
		return err
	}
	c.p, c.closeSent, c.silence.halfs = p, closeSent, halfs
	return nil
}

// readLoopState reads the fields of b over p (its settings kept).
func readLoopState(b []byte, p parser) (parser, bool, int, error) {
	const fixed = 3 + 8 + 4 + 1 + 8
	if len(b) < fixed+1 {
		return p, false, 0, stateErrorf("%d bytes, shorter than the fixed part", len(b))
	}
	if b[0] != loopStateFormat {
		return p, false, 0, stateErrorf("format %d; this binary reads format %d", b[0], loopStateFormat)
	}
	flags := b[1]
	if flags&^(stateInFrame|stateFragmented|stateCloseSent) != 0 {
		return p, false, 0, stateErrorf("unknown flags %#x", flags)
	}
	p.inFrame, p.fragmented = flags&stateInFrame != 0, flags&stateFragmented != 0
	p.op = OpCode(b[2])
	p.remaining = int64(binary.BigEndian.Uint64(b[3:]))
	p.key = binary.BigEndian.Uint32(b[11:])
	p.keyPos = int(b[15])
	p.msgLen = int64(binary.BigEndian.Uint64(b[16:]))
	rest := b[fixed:]
	var err error
	if p.hdrN, rest, err = readStateBytes(rest, p.hdr[:]); err != nil {
		return p, false, 0, err
	}
	if p.ctlN, rest, err = readStateBytes(rest, p.ctl[:]); err != nil {
		return p, false, 0, err
	}
	if len(rest) != 4 {
		return p, false, 0, stateErrorf("%d bytes where the last field's 4 are", len(rest))
	}
	halfs := binary.BigEndian.Uint32(rest)
	if halfs > 1<<20 {
		return p, false, 0, stateErrorf("%d silent half intervals", halfs)
	}
	return p, flags&stateCloseSent != 0, int(halfs), nil
}

// readStateBytes reads a count and that many bytes into dst; the rest follows.
func readStateBytes(b, dst []byte) (int, []byte, error) {
	if len(b) < 1 {
		return 0, nil, stateErrorf("cut short")
	}
	n := int(b[0])
	if n > len(dst) || len(b) < 1+n {
		return 0, nil, stateErrorf("%d bytes of at most %d, %d left", n, len(dst), len(b)-1)
	}
	copy(dst, b[1:1+n])
	return n, b[1+n:], nil
}

// errStateUnreachable: the parser state read is none the parser could be in.
var errStateUnreachable = errors.New("a parser state the parser cannot reach")

// checkParserState refuses a parser state consume could not have left under p's limits, so
// that a restored codec parses on as the one it came from would have (a control payload that
// would not fit its array, a header that is complete, a frame over the limit).
func checkParserState(p *parser) error {
	why := ""
	switch {
	case !p.op.isKnown() || p.op == OpText:
		why = fmt.Sprintf("opcode %d", p.op)
	case p.remaining < 0 || p.remaining > p.maxFrame || p.msgLen < 0 || p.msgLen > p.maxMessage:
		why = "lengths beyond the limits"
	case p.keyPos < 0 || p.keyPos > 3:
		why = fmt.Sprintf("mask position %d", p.keyPos)
	case !p.inFrame && (p.remaining != 0 || p.ctlN != 0):
		why = "payload left outside a frame"
	case p.inFrame && p.hdrN != 0:
		why = "a header gathered inside a frame"
	case p.hdrN >= 2 && p.hdrN >= HeaderLen(p.hdr[0], p.hdr[1]):
		why = "a complete header still gathered"
	case p.op.IsControl() && int64(p.ctlN)+p.remaining > MaxControlPayload:
		why = "a control payload over its bound"
	case !p.op.IsControl() && p.ctlN != 0:
		why = "a control payload in a data frame"
	}
	if why != "" {
		return &StateError{Reason: fmt.Sprintf("%s: %s", errStateUnreachable, why)}
	}
	return nil
}
