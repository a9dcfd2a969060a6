package ws

import (
	"errors"
	"io"
	"time"

	"github.com/moonbridge/moonbridge/loop"
)

// LoopCodec is a server connection's WebSocket codec on an event loop (loop): the same
// parser as Conn.Read, the keepalive of docs/design.md on the loop's timer wheel, and the close
// handshake, with no goroutine or timer of its own. It runs on its loop's goroutine only; the
// Set methods are for before Register.
//
// It may sit on an inner codec (TLS records for wss): Open opens the inner first and parses
// what it gave; every frame this codec writes is sealed by the inner one. What the inner Seal
// gets: for data, the loop's buffers with the frame header in front of the stream, so at least
// loop.Headroom-10 bytes of headroom are left; for control frames, this codec's own small
// buffers, loop.Headroom of headroom and an out with loop.SealSlack bytes more than the frame
// (not the loop's full size): the inner codec must need no more than that.
//
// Every control frame it produces (a pong, a close answer, a keepalive ping, a close) lives in
// its own small array and stays valid until its next call: the loop writes or copies it at once.
type LoopCodec struct {
	p       parser
	inner   loop.Codec // nil: plain TCP
	half    time.Duration
	silence silence
	log     peerLog

	closeSent   bool // a close frame went out: no frame may follow it
	closeCode   CloseCode
	closeReason string
	closeFor    func(reason error) (CloseCode, string)

	// ctl holds this call's control frames at ctl[loop.Headroom:] (a pong, then a close), with
	// headroom in front for the inner codec's Seal.
	ctl     [loop.Headroom + 2*(2+MaxControlPayload)]byte
	pongN   int
	closeN  int
	sealOut []byte // the inner codec's scratch for sealing control frames; nil without one
	joined  []byte // two pieces of wire in one (the inner's reply and ours): rare, grown once
}

var (
	_ loop.Codec       = (*LoopCodec)(nil)
	_ loop.Ticker      = (*LoopCodec)(nil)
	_ loop.Ender       = (*LoopCodec)(nil)
	_ loop.NoHalfClose = (*LoopCodec)(nil)
)

// LoopState is a server connection's reading state and settings: a frame partly read, an open
// fragmented message, the limits and the keepalive. Conn.Detach hands it over; NewLoopState
// makes the state of a connection that has read nothing yet.
type LoopState struct {
	p   parser
	cfg Config
	log peerLog
}

// NewLoopState is the state of a server connection fresh from its upgrade.
func NewLoopState(cfg Config) LoopState {
	cfg = cfg.withDefaults()
	return LoopState{p: newParser(RoleServer, cfg), cfg: cfg, log: peerLog{base: cfg.Logger}}
}

// NewLoopCodec makes the codec that carries on from st. inner is the codec under the
// WebSocket (gossl's TLS records for wss), nil for plain TCP. It answers the session's clean
// end with a 1000 close frame and an error with 1011 (1001 at shutdown and for a dead peer)
// until SetClose and SetCloseFor say otherwise.
func NewLoopCodec(st LoopState, inner loop.Codec) *LoopCodec {
	c := &LoopCodec{
		p: st.p, inner: inner, log: st.log,
		half: st.cfg.PingInterval / 2, silence: newSilence(st.cfg),
		closeCode: CloseNormal,
	}
	if inner != nil {
		c.sealOut = make([]byte, len(c.ctl)+loop.SealSlack)
	}
	return c
}

// Inner is the codec under the WebSocket (TLS records for wss), nil for plain TCP.
func (c *LoopCodec) Inner() loop.Codec { return c.inner }

// SetClose sets the close frame CloseWrite sends when the other side's stream has ended
// cleanly (the relay: 1000, "server closed the connection").
func (c *LoopCodec) SetClose(code CloseCode, reason string) {
	c.closeCode, c.closeReason = code, reason
}

// SetCloseFor sets how End picks the close frame for the reason a session ended (the relay's
// closeCode and outcome). Its own reasons keep theirs: a protocol error was answered when it
// came, and a dead peer gets 1001.
func (c *LoopCodec) SetCloseFor(f func(reason error) (CloseCode, string)) { c.closeFor = f }

// Growth passes on the inner codec's (loop.Grower): TLS may open more plaintext than the
// ciphertext one read brought, and the frames are parsed from that plaintext in place, so the
// loop must leave the same room behind in. Without an inner Grower it is 0.
func (c *LoopCodec) Growth() int {
	if g, ok := c.inner.(loop.Grower); ok {
		return g.Growth()
	}
	return 0
}

// Open parses the frames that the bytes just read carry, in place: binary payloads gathered at
// the front of in, unmasked. The reply answers the last ping of this read (the RFC lets a pong
// answer only the latest ping, which keeps the reply bounded) and the peer's close; a protocol
// error replies with the close frame Conn would send (1002, 1003, 1007, 1009) and returns the
// *ProtocolError. A normal close is io.EOF, any other a *CloseError.
func (c *LoopCodec) Open(in []byte) (int, []byte, error) {
	var innerReply []byte
	var innerErr error
	if c.inner != nil {
		var k int
		k, innerReply, innerErr = c.inner.Open(in)
		in = in[:k]
	}
	return c.parse(in, innerReply, innerErr)
}

// Prime parses frame bytes that the layer under the WebSocket opened before this codec took
// over (wss: the plaintext gossl.DetachBoring returns), as Open parses what its inner codec
// opened: the payload bytes, at the front of in, are the side's loop.Side.Pending, and reply
// (sealed by the inner codec) goes to the peer before anything else. Call it once, before the
// codec is registered.
func (c *LoopCodec) Prime(in []byte) (n int, reply []byte, err error) {
	return c.parse(in, nil, nil)
}

// parse runs the parser over opened bytes and gathers the replies.
func (c *LoopCodec) parse(in, innerReply []byte, innerErr error) (int, []byte, error) {
	c.pongN, c.closeN = 0, 0
	n, err := c.read(in)
	if err == nil && innerErr != nil {
		err = c.innerEnd(innerErr)
	}
	reply, werr := c.wire(innerReply, c.pongN+c.closeN)
	if err == nil {
		err = werr
	}
	return n, reply, err
}

// read runs the parser; its first error is sticky, as Conn.Read's is.
func (c *LoopCodec) read(in []byte) (int, error) {
	if c.p.err != nil {
		return 0, c.p.err
	}
	n, err := c.p.consume(in, c)
	if err != nil {
		c.p.err = err
		var pe *ProtocolError
		if errors.As(err, &pe) {
			logBadInput(c.log.logger(), pe)
			c.closeN = c.putClose(c.pongN, pe.Code, pe.Reason)
		}
	}
	return n, err
}

// innerEnd maps the end of the inner stream (a TLS close_notify) as Conn.Read maps the
// socket's: inside a frame it is unexpected.
func (c *LoopCodec) innerEnd(err error) error {
	if err == io.EOF && c.p.midFrame() {
		err = io.ErrUnexpectedEOF
	}
	c.p.err = err
	return err
}

func (c *LoopCodec) onPing(payload []byte) error {
	if !c.closeSent {
		c.pongN = c.putControl(0, OpPong, payload)
	}
	return nil
}

func (c *LoopCodec) onClose(payload []byte) error {
	code, _, err := peerClose(payload)
	if code != 0 {
		c.closeN = c.putClose(c.pongN, code, "")
	}
	return err
}

// Seal writes the header of one binary message (FIN, unmasked: a server's) into the headroom
// in front of buf[start:]; the inner codec, if any, seals the frame. After a close frame no
// message may follow: ErrClosed.
func (c *LoopCodec) Seal(buf []byte, start int, out []byte) ([]byte, error) {
	if c.closeSent {
		return nil, ErrClosed
	}
	h := Header{Fin: true, OpCode: OpBinary, Length: int64(len(buf) - start)}
	start -= h.Size()
	PutHeader(buf[start:], h)
	if c.inner == nil {
		return buf[start:], nil
	}
	return c.inner.Seal(buf, start, out)
}

// CloseWrite is the close frame SetClose set (1000 by default), unless one went out already,
// followed by the inner codec's closing bytes.
func (c *LoopCodec) CloseWrite() []byte {
	frame, _ := c.wire(nil, c.putClose(0, c.closeCode, c.closeReason))
	if c.inner == nil {
		return frame
	}
	return c.join(frame, c.inner.CloseWrite())
}

// NoHalfClose: once CloseWrite's close frame is out, the loop ends the session rather than
// wait for the peer's answer, as Conn.CloseWithCode closes the connection after it (a peer that
// never answers must not keep the session).
func (*LoopCodec) NoHalfClose() {}

// End is the close frame for a session that ended for reason, unless one went out already.
func (c *LoopCodec) End(reason error) []byte {
	code, text := c.endCode(reason)
	frame, _ := c.wire(nil, c.putClose(0, code, text))
	return frame
}

func (c *LoopCodec) endCode(reason error) (CloseCode, string) {
	var dead *DeadPeerError
	switch {
	case errors.As(reason, &dead):
		return CloseGoingAway, dead.Reason()
	case c.closeFor != nil:
		return c.closeFor(reason)
	case errors.Is(reason, loop.ErrShutdown):
		return CloseGoingAway, ""
	}
	return CloseInternalError, ""
}

// Period is half the ping interval; 0 (no ticks) when the keepalive is off.
func (c *LoopCodec) Period() time.Duration { return c.half }

// Tick is the keepalive of docs/design.md: the peer is dead after DeadPeerIntervals intervals
// with no frame while it was being read; an empty ping goes out when nothing was written in
// the half interval before (the loop counts the ping as a write).
func (c *LoopCodec) Tick(st loop.TickState) ([]byte, error) {
	if dead := c.silence.pass(st.Heard, st.Reading, c.half); dead != nil {
		dead.log(c.log.logger())
		return nil, dead
	}
	if st.Wrote || c.closeSent {
		return nil, nil
	}
	return c.wire(nil, c.putControl(0, OpPing, nil))
}

// putControl writes a control frame at ctl[Headroom+at:] and returns its length.
func (c *LoopCodec) putControl(at int, op OpCode, payload []byte) int {
	dst := c.ctl[loop.Headroom+at:]
	n := PutHeader(dst, Header{Fin: true, OpCode: op, Length: int64(len(payload))})
	return n + copy(dst[n:], payload)
}

// putClose writes a close frame at ctl[Headroom+at:], once per connection, and returns its
// length (0 when a close frame went out before).
func (c *LoopCodec) putClose(at int, code CloseCode, reason string) int {
	if c.closeSent {
		return 0
	}
	c.closeSent = true
	dst := c.ctl[loop.Headroom+at:]
	n := PutClosePayload(dst[2:], code, reason)
	PutHeader(dst, Header{Fin: true, OpCode: OpClose, Length: int64(n)})
	return 2 + n
}

// wire is the n bytes of control frames at ctl[Headroom:], sealed by the inner codec if any,
// behind the inner codec's reply if it has one.
func (c *LoopCodec) wire(innerReply []byte, n int) ([]byte, error) {
	if c.inner == nil {
		if n == 0 {
			return nil, nil
		}
		return c.ctl[loop.Headroom : loop.Headroom+n], nil
	}
	var sealed []byte
	if n > 0 {
		var err error
		if sealed, err = c.inner.Seal(c.ctl[:loop.Headroom+n], loop.Headroom, c.sealOut); err != nil {
			return innerReply, err
		}
	}
	return c.join(innerReply, sealed), nil
}

// join is a then b in one slice.
func (c *LoopCodec) join(a, b []byte) []byte {
	switch {
	case len(a) == 0:
		return b
	case len(b) == 0:
		return a
	}
	c.joined = append(append(c.joined[:0], a...), b...)
	return c.joined
}
