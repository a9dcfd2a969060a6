package ws

import (
	"errors"
	"io"
)

// readState is the frame parser's state between reads. The connection
// keeps only these few small arrays; payload bytes live in the caller's
// buffer.
type readState struct {
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

	err error // sticky: once the stream ended, every Read returns it
}

// Read reads the next bytes of the stream into p. It reads raw socket
// bytes straight into p, then parses them in place: headers are dropped,
// payloads are unmasked eight bytes at a time while being moved down over
// the headers, control frames are handled (a ping is answered at once).
// So a read returns the payload of every whole or partial data frame it
// received, with no copy through an intermediate buffer.
//
// Read returns io.EOF after a normal close (1000, 1001 or no code) or a
// TCP close between frames, a *CloseError after any other close, and a
// *ProtocolError after closing the connection because of bad input.
func (c *Conn) Read(p []byte) (int, error) {
	if c.rd.err != nil {
		return 0, c.rd.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		c.reader.Store(c.reader.Load()&readerHeard | readerWaiting)
		n, err := c.nc.Read(p)
		if n > 0 {
			c.reader.Store(readerHeard)
			out, perr := c.consume(p[:n])
			if perr != nil {
				c.rd.err = c.fail(perr)
			} else if err != nil {
				c.rd.err = c.endOfStream(err)
			}
			if out > 0 {
				return out, nil
			}
		} else {
			c.reader.Store(c.reader.Load() &^ readerWaiting)
			if err != nil {
				c.rd.err = c.endOfStream(err)
			}
		}
		if c.rd.err != nil {
			return 0, c.rd.err
		}
	}
}

// consume parses b (raw bytes just read) in place and returns how many
// payload bytes it gathered at the front of b.
func (c *Conn) consume(b []byte) (int, error) {
	rd := &c.rd
	in, out := 0, 0
	for in < len(b) {
		if !rd.inFrame {
			used, done, err := c.takeHeader(b[in:])
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
			if err := c.endFrame(); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// takeHeader parses the header at the start of b, or gathers its pieces
// across reads. It reports how many bytes of b it used and whether a
// header is now complete.
func (c *Conn) takeHeader(b []byte) (used int, done bool, err error) {
	rd := &c.rd
	if rd.hdrN == 0 && len(b) >= 2 && len(b) >= HeaderLen(b[0], b[1]) {
		n := HeaderLen(b[0], b[1])
		return n, true, c.startFrame(b[:n])
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
	return used, true, c.startFrame(rd.hdr[:n])
}

// startFrame validates a complete header against the RFC and the
// connection's state and sets up its payload.
func (c *Conn) startFrame(raw []byte) error {
	h, _, err := ParseHeader(raw)
	if err != nil {
		return err
	}
	if err := c.checkFrame(h); err != nil {
		return err
	}
	c.rd.inFrame, c.rd.op, c.rd.remaining = true, h.OpCode, h.Length
	c.rd.key, c.rd.keyPos, c.rd.ctlN = h.Mask, 0, 0
	return nil
}

// checkFrame applies the rules that depend on the role and on the frames
// before this one, and tracks the open message.
func (c *Conn) checkFrame(h Header) error {
	rd := &c.rd
	switch {
	case c.role == RoleServer && !h.Masked:
		return protocolError(CloseProtocolError, "unmasked client frame")
	case c.role == RoleClient && h.Masked:
		return protocolError(CloseProtocolError, "masked server frame")
	case h.OpCode.IsControl():
		return nil
	case h.OpCode == OpText:
		return protocolError(CloseUnsupportedData, "text frames are not accepted; the stream is binary")
	case h.OpCode == OpBinary && rd.fragmented:
		return protocolError(CloseProtocolError, "new message before the previous one finished")
	case h.OpCode == OpContinuation && !rd.fragmented:
		return protocolError(CloseProtocolError, "continuation frame without a message")
	case h.Length > c.cfg.MaxFrameSize:
		return protocolError(CloseMessageTooBig, "frame over the size limit")
	}
	if h.OpCode == OpBinary {
		rd.msgLen = 0
	}
	rd.msgLen += h.Length
	if rd.msgLen > c.cfg.MaxMessageSize {
		return protocolError(CloseMessageTooBig, "message over the size limit")
	}
	rd.fragmented = !h.Fin
	return nil
}

// endFrame finishes the current frame; control frames act now.
func (c *Conn) endFrame() error {
	c.rd.inFrame = false
	if !c.rd.op.IsControl() {
		return nil
	}
	payload := c.rd.ctl[:c.rd.ctlN]
	switch c.rd.op {
	case OpPing:
		return c.writeControl(OpPong, payload)
	case OpClose:
		return c.peerClosed(payload)
	}
	return nil // a pong: hearing it was the point
}

// peerClosed answers the peer's close frame with the same code, closes the
// connection and returns the error that ends the stream.
func (c *Conn) peerClosed(payload []byte) error {
	code, reason, err := ParseClosePayload(payload)
	if err != nil {
		return err
	}
	_ = c.CloseWithCode(code, "")
	switch code {
	case CloseNormal, CloseGoingAway, CloseNoStatus:
		return io.EOF
	}
	return &CloseError{Code: code, Reason: string(reason)}
}

// fail closes the connection for a protocol error, with its code and
// reason, and logs it. Other errors pass through.
func (c *Conn) fail(err error) error {
	var pe *ProtocolError
	if errors.As(err, &pe) {
		c.log.Info().Uint16("code", uint16(pe.Code)).Str("reason", pe.Reason).Msg("ws: closing connection on bad input")
		_ = c.close(pe.Code, pe.Reason, true)
	}
	return err
}

// endOfStream maps the socket's error: EOF inside a frame is unexpected.
func (c *Conn) endOfStream(err error) error {
	if err == io.EOF && (c.rd.inFrame || c.rd.hdrN > 0) {
		return io.ErrUnexpectedEOF
	}
	return err
}
