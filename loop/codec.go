package loop

import "time"

// Headroom is how many bytes a Codec's Seal may write in front of the stream bytes it is given
// (a WebSocket frame header is at most 14).
const Headroom = 32

// SealSlack is how many bytes a Codec's Seal may add in all to a batch of BufferSize stream
// bytes when it seals into out (TLS: a header and a tag per record).
const SealSlack = 1024

// Codec turns one side's wire bytes into the session's stream bytes and back: nothing for plain
// TCP, WebSocket framing, TLS records, or both. It runs on the loop goroutine only, never
// blocks, and works on buffers the loop lends for the duration of the call.
type Codec interface {
	// Open turns the wire bytes just read from this side into stream bytes for the other side,
	// in place: it returns how many stream bytes it put at the front of in, at most len(in)
	// unless the codec is a Grower (then at most cap(in)). An incomplete frame
	// or record at the end is the codec's to keep (copied into state of its own) for the next
	// call. reply, if any, is wire bytes for this same side (a pong, a close answer), written
	// after whatever the loop still holds for it; it must stay valid until Open is called
	// again. err == io.EOF ends this side's stream cleanly, like a FIN (a WebSocket close, a TLS
	// close_notify), after the n bytes are delivered; any other error ends the session.
	Open(in []byte) (n int, reply []byte, err error)
	// Seal turns stream bytes for this side into wire bytes. buf[start:] is the stream and
	// buf[:start] (at least Headroom bytes) is free for a header; out (len at least
	// Headroom+BufferSize+SealSlack) is the loop's scratch for codecs that cannot seal in place.
	// wire is a subslice of buf or of out.
	Seal(buf []byte, start int, out []byte) (wire []byte, err error)
	// CloseWrite returns the wire bytes that end this side's stream before the loop shuts the
	// socket down for writing (a WebSocket close frame, a TLS close_notify), or nil.
	CloseWrite() []byte
}

// Ender is implemented by codecs that have last words for their side when the session ends for
// a reason (an error, Session.Close, Engine.Close): a WebSocket close frame whose code says why.
type Ender interface {
	// End returns wire bytes for this side, or nil. The loop writes them once, without waiting,
	// just before it closes the socket, and only while the stream to the side has not ended
	// and nothing is held for it (they would land inside a partly written frame).
	End(reason error) []byte
}

// NoHalfClose is implemented by codecs whose stream cannot stay open one way: once the loop has
// written a side's CloseWrite bytes and shut the socket for writing, the session ends (cleanly)
// instead of waiting for that side's own end. A WebSocket's close frame is such an end: the
// relay's goroutine path closes the connection right after it, and a peer that never answers
// the close must not keep the session open.
type NoHalfClose interface {
	NoHalfClose()
}

// Grower is implemented by codecs whose Open may put more stream bytes at the front of in than
// the wire bytes it was given: TLS opens a record whose start came with an earlier read whole,
// so its plaintext can be longer than the rest of the record that this read brought. The loop
// reads at most BufferSize-Growth() bytes from such a side, and in's capacity is BufferSize, so
// Open has Growth() bytes of room behind in. A codec that wraps a Grower passes its Growth on.
type Grower interface {
	Growth() int // less than the loop's BufferSize
}

// Ticker is implemented by codecs that need time: keepalive pings and dead-peer checks.
type Ticker interface {
	// Period is how often Tick runs (docs/design.md's keepalive: half the ping interval); 0 or
	// less at Register when this codec needs no ticks (its keepalive is off): then Tick is
	// never called.
	Period() time.Duration
	// Tick says what happened on this side since the previous tick. wire, if any, is written
	// to the side (a ping) and must stay valid until the next Tick or Open; an error ends the
	// session (a dead peer).
	Tick(since TickState) (wire []byte, err error)
}

// TickState is what the loop saw on a side since the previous tick.
type TickState struct {
	Wrote   bool // something was written to the side (stream, reply or ping)
	Heard   bool // something was read from the side
	Reading bool // the side is being read now: silence while it is not says nothing about the peer
}

// Identity is the codec of a plain TCP side: stream bytes are wire bytes.
type Identity struct{}

func (Identity) Open(in []byte) (int, []byte, error) { return len(in), nil, nil }

func (Identity) Seal(buf []byte, start int, _ []byte) ([]byte, error) { return buf[start:], nil }

func (Identity) CloseWrite() []byte { return nil }
