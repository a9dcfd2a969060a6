package loop

import (
	"errors"
	"io"
	"time"
)

// frameCodec is a toy wire format with what WebSocket asks of the loop, for the client side of
// these tests: data frames [len 1-255][payload], control frames [0][op]. A ping ('P') is
// answered with a pong ('O'); a close ('C') ends the stream; CloseWrite sends a close.
// Like the WebSocket parser, Open hands payload bytes on as soon as they arrive and keeps only
// where it is inside a frame, so its output never outgrows its input.
type frameCodec struct {
	left    int  // payload bytes of the current data frame still to come
	control bool // a 0 byte came; the op is next
	reply   []byte
}

var errBadOp = errors.New("bad control op")

func (c *frameCodec) Open(in []byte) (int, []byte, error) {
	c.reply = c.reply[:0]
	n := 0
	for i := 0; i < len(in); {
		switch {
		case c.control:
			c.control = false
			switch in[i] {
			case 'P':
				c.reply = append(c.reply, 0, 'O')
			case 'C':
				return n, c.reply, io.EOF
			default:
				return n, c.reply, errBadOp
			}
			i++
		case c.left > 0:
			k := copy(in[n:], in[i:min(len(in), i+c.left)])
			n, i, c.left = n+k, i+k, c.left-k
		case in[i] == 0:
			c.control = true
			i++
		default:
			c.left = int(in[i])
			i++
		}
	}
	return n, c.reply, nil
}

// Seal frames a short batch in place (its header in the headroom) and a long one into out.
func (c *frameCodec) Seal(buf []byte, start int, out []byte) ([]byte, error) {
	stream := buf[start:]
	if len(stream) <= 255 {
		buf[start-1] = byte(len(stream))
		return buf[start-1:], nil
	}
	w := 0
	for len(stream) > 0 {
		k := min(len(stream), 255)
		out[w] = byte(k)
		w += 1 + copy(out[w+1:], stream[:k])
		stream = stream[k:]
	}
	return out[:w], nil
}

func (c *frameCodec) CloseWrite() []byte { return []byte{0, 'C'} }

// tickingCodec adds a keepalive: a ping ('K') in every period without a write, and a dead
// peer after deadAfter periods of silence while the side was being read.
type tickingCodec struct {
	frameCodec
	period    time.Duration
	deadAfter int
	silent    int
}

var errDeadPeer = errors.New("dead peer")

func (c *tickingCodec) Period() time.Duration { return c.period }

func (c *tickingCodec) Tick(st TickState) ([]byte, error) {
	switch {
	case st.Heard:
		c.silent = 0
	case st.Reading:
		c.silent++
	}
	if c.silent >= c.deadAfter {
		return nil, errDeadPeer
	}
	if !st.Wrote {
		return []byte{0, 'K'}, nil
	}
	return nil, nil
}

// endingCodec has last words: a control op 'E' when its session ends for a reason.
type endingCodec struct {
	tickingCodec
	ticks int
}

func (c *endingCodec) End(error) []byte { return []byte{0, 'E'} }

func (c *endingCodec) Tick(st TickState) ([]byte, error) {
	c.ticks++
	return c.tickingCodec.Tick(st)
}

// decodeFrames is the player's side of frameCodec: the payloads, and the control ops in order.
func decodeFrames(wire []byte) (payload, ops []byte) {
	for i := 0; i < len(wire); {
		if wire[i] == 0 {
			ops = append(ops, wire[i+1])
			i += 2
			continue
		}
		k := int(wire[i])
		payload = append(payload, wire[i+1:i+1+k]...)
		i += 1 + k
	}
	return payload, ops
}

// encodeFrames frames payload in frames of random length, with a ping after every seventh.
func encodeFrames(payload []byte, seed byte) (wire []byte, pings int) {
	sizes := randomBytes(len(payload), seed)
	for i := 0; len(payload) > 0; i++ {
		k := min(len(payload), 1+int(sizes[i])%255)
		wire = append(append(wire, byte(k)), payload[:k]...)
		payload = payload[k:]
		if i%7 == 6 {
			wire = append(wire, 0, 'P')
			pings++
		}
	}
	return wire, pings
}
