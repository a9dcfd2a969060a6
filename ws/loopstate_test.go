package ws

import (
	"bytes"
	"errors"
	"testing"
)

// moved is c's state restored into a fresh codec of cfg, as a binary upgrade does.
func moved(t *testing.T, c *LoopCodec, cfg Config) *LoopCodec {
	t.Helper()
	state, err := c.MarshalState()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	next := newTestCodec(cfg)
	if err := next.RestoreState(state); err != nil {
		t.Fatalf("restore: %v", err)
	}
	return next
}

// A client stream cut anywhere (in a header, a payload, a fragmented message, a ping's
// payload) and the codec moved at the cut parses on as if it had not moved: the same payload
// bytes, the same pong.
func TestLoopCodecMovesMidMessage(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 30)
	wire := frame(false, OpBinary, data[:100], testKey)
	wire = append(wire, frame(true, OpPing, []byte("ping!"), testKey)...)
	wire = append(wire, frame(true, OpContinuation, data[100:], testKey)...)
	wire = append(wire, frame(true, OpBinary, []byte("next"), testKey)...)
	want := append(bytes.Clone(data), "next"...)
	for cut := 0; cut <= len(wire); cut++ {
		c := newTestCodec(noKeepalive())
		got, reply1, err := openWire(t, c, wire[:cut])
		if err != nil {
			t.Fatal(err)
		}
		c = moved(t, c, noKeepalive())
		rest, reply2, err := openWire(t, c, wire[cut:])
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, rest...); !bytes.Equal(got, want) {
			t.Fatalf("cut at %d: payload %q, want %q", cut, got, want)
		}
		if pong := append(reply1, reply2...); !bytes.Equal(pong, []byte{0x8a, 5, 'p', 'i', 'n', 'g', '!'}) {
			t.Fatalf("cut at %d: replies % x, want one pong", cut, pong)
		}
	}
}

// A close frame that went out moves: the moved codec writes no message after it.
func TestLoopCodecMovesItsCloseState(t *testing.T) {
	c := newTestCodec(noKeepalive())
	if len(c.CloseWrite()) == 0 {
		t.Fatal("no close frame")
	}
	next := moved(t, c, noKeepalive())
	if _, err := next.Seal(make([]byte, 32), 16, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("seal after the close moved: %v, want ErrClosed", err)
	}
	if len(next.CloseWrite()) != 0 {
		t.Error("a second close frame after the move")
	}
}

// What cannot move: a codec whose stream ended; and what is refused on arrival.
func TestLoopCodecStateRefusals(t *testing.T) {
	ended := newTestCodec(noKeepalive())
	openWire(t, ended, []byte{0x82, 0x01, 'x'}) // unmasked: a protocol error
	var se *StateError
	if _, err := ended.MarshalState(); !errors.As(err, &se) {
		t.Errorf("ended stream: %v, want a StateError", err)
	}
	good, _ := newTestCodec(noKeepalive()).MarshalState()
	// On an inner codec (TLS) the state is the WebSocket's alone, and such a codec takes it.
	inner := NewLoopCodec(NewLoopState(noKeepalive()), identityCodec{})
	if b, err := inner.MarshalState(); err != nil || !bytes.Equal(b, good) {
		t.Errorf("on an inner codec: %x, %v; want %x", b, err, good)
	}
	if err := inner.RestoreState(good); err != nil {
		t.Errorf("restored on an inner codec: %v", err)
	}
	mutate := func(i int, v byte) []byte { b := bytes.Clone(good); b[i] = v; return b }
	for name, state := range map[string][]byte{
		"empty": nil, "cut": good[:10], "longer": append(bytes.Clone(good), 0),
		"format": mutate(0, 9), "flags": mutate(1, 0x80), "text opcode": mutate(2, byte(OpText)),
		"mask position": mutate(15, 4), "control overflow": controlOverflow(t),
	} {
		c := newTestCodec(noKeepalive())
		if err := c.RestoreState(state); !errors.As(err, &se) {
			t.Errorf("%s: %v, want a StateError", name, err)
		}
		if p, _, err := openWire(t, c, frame(true, OpBinary, []byte("ok"), testKey)); err != nil || string(p) != "ok" {
			t.Errorf("%s: the refused codec changed: %q, %v", name, p, err)
		}
	}
}

// controlOverflow is a state inside a ping whose payload would overflow the control array.
func controlOverflow(t *testing.T) []byte {
	t.Helper()
	c := newTestCodec(noKeepalive())
	ping := frame(true, OpPing, bytes.Repeat([]byte("p"), MaxControlPayload), testKey)
	openWire(t, c, ping[:len(ping)-10])
	state, err := c.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	state[len(state)-4-1-(MaxControlPayload-10)] = MaxControlPayload // ctlN: the bound, 10 to come
	return state
}

type identityCodec struct{}

func (identityCodec) Open(in []byte) (int, []byte, error)                  { return len(in), nil, nil }
func (identityCodec) Seal(buf []byte, start int, _ []byte) ([]byte, error) { return buf[start:], nil }
func (identityCodec) CloseWrite() []byte                                   { return nil }

// FuzzLoopCodecMove is FuzzLoopCodecOpen with the codec moved to a fresh one after every
// piece: the payload, the pongs and the end are still the reference decoder's.
func FuzzLoopCodecMove(f *testing.F) {
	addReadSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte, seed uint64, maxPiece uint16) {
		checkPiecesAgainstReference(t, in, seed, maxPiece, func(c *LoopCodec) *LoopCodec { return moved(t, c, fuzzConfig()) })
	})
}

// FuzzLoopCodecRestore: any state bytes are refused or restored, and a restored codec parses
// any input without a panic.
func FuzzLoopCodecRestore(f *testing.F) {
	good, _ := newTestCodec(fuzzConfig()).MarshalState()
	f.Add(good, []byte{0x82, 0x81, 1, 2, 3, 4, 'x'})
	f.Fuzz(func(t *testing.T, state, in []byte) {
		c := newTestCodec(fuzzConfig())
		if c.RestoreState(state) != nil {
			return
		}
		c.Open(bytes.Clone(in))
	})
}
