package ws

import (
	"errors"
	"io"

	"github.com/rs/zerolog"
)

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
//
// Early data a server took come first, as if they had been the payload of the first frames.
// A raw stream (RawStream) has no frames: a read is the socket's, and its end is the socket's.
func (c *Conn) Read(p []byte) (int, error) {
	if c.rd.err != nil {
		return 0, c.rd.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(c.early) > 0 {
		return c.readEarly(p), nil
	}
	for {
		c.reader.Store(c.reader.Load()&readerHeard | readerWaiting)
		n, err := c.nc.Read(p)
		if n > 0 {
			c.reader.Store(readerHeard)
			out, perr := c.payload(p[:n])
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

// payload is what the bytes just read carry: all of them on a raw stream, else the frames'
// payloads, parsed in place.
func (c *Conn) payload(b []byte) (int, error) {
	if c.raw {
		return len(b), nil
	}
	return c.rd.consume(b, c)
}

// readEarly returns early data the server took, as a Read that heard from the peer.
func (c *Conn) readEarly(p []byte) int {
	n := copy(p, c.early)
	c.early = c.early[n:]
	if len(c.early) == 0 {
		c.early = nil
	}
	c.reader.Store(c.reader.Load() | readerHeard)
	return n
}

// onPing answers a ping at once.
func (c *Conn) onPing(payload []byte) error { return c.writeControl(OpPong, payload) }

// onClose keeps the peer's close frame for PeerClose, answers it with the same code, closes the
// connection and returns the error that ends the stream.
func (c *Conn) onClose(payload []byte) error {
	code, reason, err := peerClose(payload)
	c.notePeerClose(code, reason)
	if code != 0 {
		_ = c.CloseWithCode(code, "")
	}
	return err
}

// notePeerClose records that the peer's close frame came, and its code and reason unless it
// was malformed (code 0), in that order: whoever sees PeerClosed sees PeerClose too.
func (c *Conn) notePeerClose(code CloseCode, reason []byte) {
	if code != 0 {
		c.peerClose.Store(&CloseError{Code: code, Reason: string(reason)})
	}
	c.peerClosed.Store(true)
}

// fail closes the connection for a protocol error, with its code and
// reason, and logs it. Other errors pass through.
func (c *Conn) fail(err error) error {
	var pe *ProtocolError
	if errors.As(err, &pe) {
		logBadInput(c.log.logger(), pe)
		_ = c.close(pe.Code, pe.Reason, true)
	}
	return err
}

func logBadInput(l zerolog.Logger, pe *ProtocolError) {
	l.Info().Uint16("code", uint16(pe.Code)).Str("reason", pe.Reason).Msg("ws: closing connection on bad input")
}

// endOfStream maps the socket's error: EOF inside a frame is unexpected.
func (c *Conn) endOfStream(err error) error {
	if err == io.EOF && c.rd.midFrame() {
		return io.ErrUnexpectedEOF
	}
	return err
}
