package play

import "github.com/moonbridge/moonbridge/mc"

// Tracker follows the server-to-client stream of one session from the start of the login state
// (the first byte the backend sends after the handshake and Login Start): frame lengths, Set
// Compression (sets the threshold), Login Success (to configuration), Finish Configuration (to
// play), Start Configuration (play back to configuration), bundle delimiters in play, Encryption
// Request (lost: ErrEncrypted) and the Disconnect and Transfer that end the stream for the client.
//
// It buffers no whole frames: of each frame it keeps the length prefix and at most the first
// headCap bytes of the body, until it has the packet id, and skips the rest as it passes.
type Tracker struct {
	ids       protocolIDs
	state     State
	threshold int32 // -1: no compression
	inBundle  bool  // play: between two bundle delimiters
	ended     bool  // the server sent Disconnect or Transfer
	err       error // sticky: the tracker is lost

	offset     int64 // bytes fed so far
	frameStart int64 // offset of the frame being read

	// The frame being read.
	lenBuf [3]byte // its length prefix while it arrives: MaxFrameLen takes 3 VarInt bytes
	lenN   int     // bytes in lenBuf
	inBody bool
	left   int    // body bytes still to come
	head   []byte // the body's first bytes, until the packet is known: in small, or a buffer of its own for the frame
	want   int    // len(head) at which to look at it next
	known  bool   // the packet is read: the rest of the body is skipped
	// small holds head up to firstLook, all most frames need. A frame that needs more gets a
	// buffer of its own, dropped when it ends: the tracker lives as long as its session, mostly
	// idle between frames.
	small [firstLook]byte
	data  [maxPrefix]byte // decompressed packet data of a compressed frame
}

// NewTracker returns a tracker at the start of the login state of protocol, or an
// *UnsupportedError for a protocol without packet ids.
func NewTracker(protocol int32) (*Tracker, error) {
	ids, ok := protocolTable[protocol]
	if !ok {
		return nil, &UnsupportedError{Protocol: protocol}
	}
	t := &Tracker{ids: ids, threshold: -1}
	t.head = t.small[:0]
	return t, nil
}

// Feed reads the next bytes of the stream, in any chunking: a frame, or a VarInt, may be split
// across calls. With stop, it returns after the first frame that ends in b at which the stream
// is Movable, consumed being the bytes up to there, so that the caller can put packets in
// between; without stop it consumes all of b. After an error (ErrEncrypted, or a *StreamError
// for a malformed frame) the tracker is lost: Feed consumes all of b and returns the same error.
func (t *Tracker) Feed(b []byte, stop bool) (consumed int, err error) {
	for consumed < len(b) && t.err == nil {
		n, frameEnded := t.step(b[consumed:])
		consumed += n
		t.offset += int64(n)
		if frameEnded && stop && t.Movable() {
			return consumed, nil
		}
	}
	if t.err != nil {
		return len(b), t.err
	}
	return consumed, nil
}

// Movable reports whether the stream is at a frame boundary (no partial frame fed) in
// configuration or play, outside a bundle, not ended and not lost: a packet appended now lands
// between two packets the client reads, and is handled at once.
func (t *Tracker) Movable() bool {
	return t.err == nil && !t.ended && !t.inBody && t.lenN == 0 && !t.inBundle && t.state != Login
}

// State is the stream's state after the last packet whose id the tracker has read: at a frame
// boundary, the state of the next frame.
func (t *Tracker) State() State { return t.state }

// Threshold is the compression threshold Set Compression set; -1: no compression.
func (t *Tracker) Threshold() int32 { return t.threshold }

// Err is the error that lost the tracker, or nil.
func (t *Tracker) Err() error { return t.err }

// Ended reports whether the server sent a Disconnect or a Transfer: the client reads nothing
// after it, so nothing can be put into the stream any more.
func (t *Tracker) Ended() bool { return t.ended }

// step reads, from b (not empty), the next part of the frame being read: its length prefix, its
// head, the rest of its body. frameEnded: the frame's last byte was b[n-1].
func (t *Tracker) step(b []byte) (n int, frameEnded bool) {
	if !t.inBody {
		if n = t.readLength(b); !t.inBody {
			return n, false
		}
	}
	if !t.known {
		if n += t.readHead(b[n:]); !t.known {
			return n, false
		}
	}
	skip := min(len(b)-n, t.left)
	t.left -= skip
	if n += skip; t.left > 0 {
		return n, false
	}
	t.inBody, t.known, t.head = false, false, t.small[:0]
	return n, true
}

// readLength reads the length prefix's bytes from b, and starts the body once it is whole.
func (t *Tracker) readLength(b []byte) int {
	if t.lenN == 0 {
		t.frameStart = t.offset
	}
	for i, c := range b {
		t.lenBuf[t.lenN] = c
		t.lenN++
		switch {
		case c&0x80 == 0:
			t.startBody()
			return i + 1
		case t.lenN == len(t.lenBuf):
			t.fail(mc.ErrTooLarge) // a fourth byte would make it more than MaxFrameLen
			return i + 1
		}
	}
	return len(b)
}

func (t *Tracker) startBody() {
	size, _, err := mc.ReadVarInt(t.lenBuf[:t.lenN])
	t.lenN = 0
	if err != nil {
		t.fail(err) // a padded encoding
		return
	}
	t.inBody, t.left, t.want = true, int(size), min(int(size), firstLook)
}

// readHead buffers the body's first bytes from b, looking at them at each checkpoint t.want,
// until the packet is known.
func (t *Tracker) readHead(b []byte) int {
	n := 0
	for !t.known && t.err == nil {
		take := min(len(b)-n, t.want-len(t.head))
		t.head = append(t.head, b[n:n+take]...)
		t.left -= take
		if n += take; len(t.head) < t.want {
			break
		}
		t.lookHead()
	}
	return n
}

func (t *Tracker) fail(reason error) {
	if t.err == nil {
		t.err = &StreamError{Offset: t.frameStart, State: t.state, Err: reason}
	}
}
