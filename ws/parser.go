package ws

import "io"

// parser is the frame parser of a connection's reading side. Conn.Read (on its goroutine) and
// LoopCodec.Open (on an event loop) both run it: one piece of code parses, unmasks and gathers,
// whoever owns the socket. It keeps only these few small arrays between calls; payload bytes
// live in the caller's buffer.
type parser struct {
	inFrame    bool   // a header was parsed and its payload is not done
	op         OpCode // the current frame's opcode
	remaining  int64  // payload bytes of the current frame still to come
	key        uint32 // masking key, 0 when unmasked
	keyPos     int
	fragmented bool  // a data message is open: its last frame lacked FIN
	msgLen     int64 // payload announced so far in the open message

	hdr  [MaxHeaderLen]byte // a header split across reads
	hdrN int
	ctl  [MaxControlPayload]byte // a control payload being gathered
	ctlN int

	role       Role // the reading end's: a server reads masked frames
	maxFrame   int64
	maxMessage int64

	err error // sticky: once the stream ended, every read returns it
}

// controlSink acts on a complete control frame as it is parsed; an error stops the parse and
// ends the stream (io.EOF after a normal close). The payload is valid only during the call.
type controlSink interface {
	onPing(payload []byte) error
	onClose(payload []byte) error
}

func newParser(role Role, cfg Config) parser {
	return parser{role: role, maxFrame: cfg.MaxFrameSize, maxMessage: cfg.MaxMessageSize}
}

// consume parses b (raw bytes just read) in place and returns how many
// payload bytes it gathered at the front of b. Headers are dropped,
// payloads are unmasked eight bytes at a time while being moved down over
// the headers, and each control frame goes to sink once complete.
func (rd *parser) consume(b []byte, sink controlSink) (int, error) {
	in, out := 0, 0
	for in < len(b) {
		if !rd.inFrame {
			used, done, err := rd.takeHeader(b[in:])
			in += used
			if err != nil || !done {
				return out, err
			}
		} else {
			k := int(min(rd.remaining, int64(len(b)-in)))
			if rd.op.IsControl() {
				rd.keyPos = maskCopy(rd.ctl[rd.ctlN:], b[in:in+k], rd.key, rd.keyPos)
				rd.ctlN += k
			} else {
				rd.keyPos = maskCopy(b[out:], b[in:in+k], rd.key, rd.keyPos)
				out += k
			}
			in += k
			rd.remaining -= int64(k)
		}
		if rd.inFrame && rd.remaining == 0 {
			if err := rd.endFrame(sink); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// takeHeader parses the header at the start of b, or gathers its pieces
// across reads. It reports how many bytes of b it used and whether a
// header is now complete.
func (rd *parser) takeHeader(b []byte) (used int, done bool, err error) {
	if rd.hdrN == 0 && len(b) >= 2 && len(b) >= HeaderLen(b[0], b[1]) {
		n := HeaderLen(b[0], b[1])
		return n, true, rd.startFrame(b[:n])
	}
	for {
		need := 2
		if rd.hdrN >= 2 {
			need = HeaderLen(rd.hdr[0], rd.hdr[1])
		}
		if rd.hdrN == need {
			break
		}
		k := copy(rd.hdr[rd.hdrN:need], b[used:])
		rd.hdrN += k
		used += k
		if rd.hdrN < need {
			return used, false, nil
		}
	}
	n := rd.hdrN
	rd.hdrN = 0
	return used, true, rd.startFrame(rd.hdr[:n])
}

// startFrame validates a complete header against the RFC and the
// connection's state and sets up its payload.
func (rd *parser) startFrame(raw []byte) error {
	h, _, err := ParseHeader(raw)
	if err != nil {
		return err
	}
	if err := rd.checkFrame(h); err != nil {
		return err
	}
	rd.inFrame, rd.op, rd.remaining = true, h.OpCode, h.Length
	rd.key, rd.keyPos, rd.ctlN = h.Mask, 0, 0
	return nil
}

// checkFrame applies the rules that depend on the role and on the frames
// before this one, and tracks the open message.
func (rd *parser) checkFrame(h Header) error {
	switch {
	case rd.role == RoleServer && !h.Masked:
		return protocolError(CloseProtocolError, "unmasked client frame")
	case rd.role == RoleClient && h.Masked:
		return protocolError(CloseProtocolError, "masked server frame")
	case h.OpCode.IsControl():
		return nil
	case h.OpCode == OpText:
		return protocolError(CloseUnsupportedData, "text frames are not accepted; the stream is binary")
	case h.OpCode == OpBinary && rd.fragmented:
		return protocolError(CloseProtocolError, "new message before the previous one finished")
	case h.OpCode == OpContinuation && !rd.fragmented:
		return protocolError(CloseProtocolError, "continuation frame without a message")
	case h.Length > rd.maxFrame:
		return protocolError(CloseMessageTooBig, "frame over the size limit")
	}
	if h.OpCode == OpBinary {
		rd.msgLen = 0
	}
	rd.msgLen += h.Length
	if rd.msgLen > rd.maxMessage {
		return protocolError(CloseMessageTooBig, "message over the size limit")
	}
	rd.fragmented = !h.Fin
	return nil
}

// endFrame finishes the current frame; control frames act now.
func (rd *parser) endFrame(sink controlSink) error {
	rd.inFrame = false
	if !rd.op.IsControl() {
		return nil
	}
	payload := rd.ctl[:rd.ctlN]
	switch rd.op {
	case OpPing:
		return sink.onPing(payload)
	case OpClose:
		return sink.onClose(payload)
	}
	return nil // a pong: hearing it was the point
}

// midFrame reports whether the stream stopped inside a frame (its header included).
func (rd *parser) midFrame() bool { return rd.inFrame || rd.hdrN > 0 }

// peerClose reads the peer's close payload: the code to answer with (the same one), the reason
// (aliasing payload) and the error that ends the stream, io.EOF for a normal close (1000, 1001
// or no code), a *CloseError for any other, a *ProtocolError for a bad payload.
func peerClose(payload []byte) (CloseCode, []byte, error) {
	code, reason, err := ParseClosePayload(payload)
	if err != nil {
		return 0, nil, err
	}
	switch code {
	case CloseNormal, CloseGoingAway, CloseNoStatus:
		return code, reason, io.EOF
	}
	return code, reason, &CloseError{Code: code, Reason: string(reason)}
}
