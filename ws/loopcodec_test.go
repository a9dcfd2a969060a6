package ws

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/loop"
)

// openWire runs wire through a fresh codec's Open in one call, on a copy (Open works in place).
func openWire(t *testing.T, c *LoopCodec, wire []byte) (payload, reply []byte, err error) {
	t.Helper()
	in := bytes.Clone(wire)
	n, r, err := c.Open(in)
	return in[:n], bytes.Clone(r), err
}

func newTestCodec(cfg Config) *LoopCodec { return NewLoopCodec(NewLoopState(cfg), nil) }

// TestLoopCodecWire checks the codec against wire bytes written out by hand (RFC 6455 5.7's
// masked "Hello", key 37 fa 21 3d).
func TestLoopCodecWire(t *testing.T) {
	key := []byte{0x37, 0xfa, 0x21, 0x3d}
	hello := []byte{0x82, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}
	ping := append([]byte{0x89, 0x82}, append(key, 'h'^0x37, 'i'^0xfa)...)
	closeNormal := append([]byte{0x88, 0x82}, append(key, 0x03^0x37, 0xe8^0xfa)...)
	for _, tc := range []struct {
		name         string
		wire         []byte
		payload      string
		reply        []byte
		wantErr      error
		wantProtocol CloseCode
	}{
		{name: "binary", wire: hello, payload: "Hello"},
		{name: "ping answered", wire: append(bytes.Clone(hello), ping...), payload: "Hello", reply: []byte{0x8a, 0x02, 'h', 'i'}},
		{name: "two pings, the last answered", wire: append(append(bytes.Clone(ping), 0x89, 0x81, 1, 0, 0, 0, 'x'^1), hello...), payload: "Hello", reply: []byte{0x8a, 0x01, 'x'}},
		{name: "close echoed", wire: append(bytes.Clone(closeNormal), hello...), reply: []byte{0x88, 0x02, 0x03, 0xe8}, wantErr: io.EOF},
		{name: "pong then close", wire: append(bytes.Clone(ping), closeNormal...), reply: []byte{0x8a, 0x02, 'h', 'i', 0x88, 0x02, 0x03, 0xe8}, wantErr: io.EOF},
		{name: "unmasked frame", wire: []byte{0x82, 0x01, 'x'}, wantProtocol: CloseProtocolError},
		{name: "text frame", wire: []byte{0x81, 0x80, 1, 2, 3, 4}, wantProtocol: CloseUnsupportedData},
		{name: "frame over the limit", wire: []byte{0x82, 0xfe, 0x01, 0x00, 1, 2, 3, 4}, wantProtocol: CloseMessageTooBig},
		{name: "close reason not UTF-8", wire: append([]byte{0x88, 0x83}, append(key, 0x03^0x37, 0xe8^0xfa, 0xff^0x21)...), wantProtocol: CloseInvalidPayload},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := noKeepalive()
			cfg.MaxFrameSize = 255
			payload, reply, err := openWire(t, newTestCodec(cfg), tc.wire)
			if string(payload) != tc.payload {
				t.Errorf("payload %q, want %q", payload, tc.payload)
			}
			if tc.wantProtocol != 0 {
				var pe *ProtocolError
				if !errors.As(err, &pe) || pe.Code != tc.wantProtocol {
					t.Fatalf("err %v, want a protocol error %d", err, tc.wantProtocol)
				}
				tc.reply = []byte{0x88, byte(2 + len(pe.Reason)), byte(pe.Code >> 8), byte(pe.Code)}
				tc.reply = append(tc.reply, pe.Reason...)
			} else if err != tc.wantErr {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if !bytes.Equal(reply, tc.reply) {
				t.Errorf("reply % x, want % x", reply, tc.reply)
			}
		})
	}
}

// TestLoopCodecSplitState: a header, a payload and a control frame cut anywhere carry over
// from one Open to the next; an error is sticky.
func TestLoopCodecSplitState(t *testing.T) {
	c := newTestCodec(noKeepalive())
	wire := append(frame(true, OpBinary, bytes.Repeat([]byte("ab"), 100), testKey), frame(true, OpPing, []byte("p"), testKey)...)
	var got, replies []byte
	for _, cut := range [][2]int{{0, 1}, {1, 5}, {5, 9}, {9, 150}, {150, len(wire) - 2}, {len(wire) - 2, len(wire)}} {
		p, r, err := openWire(t, c, wire[cut[0]:cut[1]])
		if err != nil {
			t.Fatal(err)
		}
		got, replies = append(got, p...), append(replies, r...)
	}
	if !bytes.Equal(got, bytes.Repeat([]byte("ab"), 100)) || !bytes.Equal(replies, []byte{0x8a, 0x01, 'p'}) {
		t.Fatalf("payload %q, replies % x", got, replies)
	}
	if _, _, err := openWire(t, c, []byte{0x82, 0x00}); err == nil {
		t.Fatal("an unmasked frame passed")
	}
	if p, r, err := openWire(t, c, frame(true, OpBinary, []byte("late"), testKey)); len(p) != 0 || len(r) != 0 || err == nil {
		t.Fatalf("after the error: %q, % x, %v", p, r, err)
	}
}

// TestLoopCodecSealAndClose: headers written into the headroom; the close frames of a clean
// end, of SetClose, of End; nothing after a close frame.
func TestLoopCodecSealAndClose(t *testing.T) {
	c := newTestCodec(noKeepalive())
	buf := make([]byte, loop.Headroom+70000)
	for _, tc := range []struct {
		size int
		hdr  []byte
	}{{3, []byte{0x82, 0x03}}, {126, []byte{0x82, 0x7e, 0x00, 0x7e}}, {70000, []byte{0x82, 0x7f, 0, 0, 0, 0, 0, 0x01, 0x11, 0x70}}} {
		wire, err := c.Seal(buf[:loop.Headroom+tc.size], loop.Headroom, nil)
		if err != nil || !bytes.Equal(wire[:len(tc.hdr)], tc.hdr) || len(wire) != len(tc.hdr)+tc.size {
			t.Fatalf("%d bytes sealed as % x... (%d bytes), %v; want header % x", tc.size, wire[:min(len(wire), 10)], len(wire), err, tc.hdr)
		}
	}
	if got := c.CloseWrite(); !bytes.Equal(got, []byte{0x88, 0x02, 0x03, 0xe8}) {
		t.Fatalf("CloseWrite % x, want a 1000 close", got)
	}
	if got, err := c.Seal(buf[:loop.Headroom+1], loop.Headroom, nil); got != nil || err != ErrClosed {
		t.Fatalf("Seal after the close frame: % x, %v", got, err)
	}
	if got := c.End(errors.New("late")); got != nil {
		t.Fatalf("End after the close frame: % x", got)
	}

	c = newTestCodec(noKeepalive())
	c.SetClose(CloseNormal, "bye")
	if got := c.CloseWrite(); !bytes.Equal(got, []byte{0x88, 0x05, 0x03, 0xe8, 'b', 'y', 'e'}) {
		t.Fatalf("CloseWrite after SetClose % x", got)
	}
	for _, tc := range []struct {
		reason   error
		closeFor func(error) (CloseCode, string)
		want     []byte
	}{
		{reason: errors.New("backend reset"), want: []byte{0x88, 0x02, 0x03, 0xf3}},
		{reason: loop.ErrShutdown, want: []byte{0x88, 0x02, 0x03, 0xe9}},
		{reason: errors.New("x"), closeFor: func(error) (CloseCode, string) { return CloseTryAgainLater, "full" }, want: []byte{0x88, 0x06, 0x03, 0xf5, 'f', 'u', 'l', 'l'}},
		{reason: &pipe.SideError{Err: &DeadPeerError{Silent: time.Second}}, closeFor: func(error) (CloseCode, string) { return CloseInternalError, "" },
			want: append([]byte{0x88, 0x1f, 0x03, 0xe9}, "no frame from the peer for 1s"...)},
	} {
		c := newTestCodec(noKeepalive())
		c.SetCloseFor(tc.closeFor)
		if got := c.End(tc.reason); !bytes.Equal(got, tc.want) {
			t.Errorf("End(%v) = % x, want % x", tc.reason, got, tc.want)
		}
	}
}

// TestLoopCodecTick: a ping in a half interval without a write, none after a write; the peer
// is dead after DeadPeerIntervals silent intervals while read, and silence while not read
// does not count.
func TestLoopCodecTick(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PingInterval, cfg.DeadPeerIntervals = 10*time.Second, 2
	c := newTestCodec(cfg)
	if c.Period() != 5*time.Second {
		t.Fatalf("period %v", c.Period())
	}
	steps := []struct {
		st       loop.TickState
		wantPing bool
	}{
		{loop.TickState{Wrote: true, Heard: true, Reading: true}, false},
		{loop.TickState{Reading: true}, true},
		{loop.TickState{Wrote: true}, false}, // not read: does not count
		{loop.TickState{Reading: true}, true},
		{loop.TickState{Wrote: true, Reading: true}, false},
	}
	for i, s := range steps {
		wire, err := c.Tick(s.st)
		if err != nil || (len(wire) > 0) != s.wantPing || len(wire) > 0 && !bytes.Equal(wire, []byte{0x89, 0x00}) {
			t.Fatalf("tick %d: % x, %v", i, wire, err)
		}
	}
	_, err := c.Tick(loop.TickState{Reading: true})
	var dead *DeadPeerError
	if !errors.As(err, &dead) || dead.Silent != 20*time.Second {
		t.Fatalf("fourth silent half interval: %v, want a dead peer after 20s", err)
	}
	if newTestCodec(noKeepalive()).Period() != 0 {
		t.Fatal("a codec without keepalive asks for ticks")
	}
}

// TestLoopCodecZeroAllocs: Open (frames, pings answered), Seal and Tick (a ping) allocate
// nothing in steady state, with and without an inner codec.
func TestLoopCodecZeroAllocs(t *testing.T) {
	var stream []byte
	for i, size := range []int{20, 300, 5000, 40000, 125, 0, 70000} {
		stream = append(stream, frame(true, OpBinary, make([]byte, size), uint32(0x01020304*(i+1)))...)
		stream = append(stream, frame(true, OpPing, []byte("tick"), 0x0a0b0c0d)...)
	}
	buf := make([]byte, len(stream))
	batch := make([]byte, loop.Headroom+MaxBatchSize)
	out := make([]byte, loop.Headroom+MaxBatchSize+loop.SealSlack)
	for _, inner := range []loop.Codec{nil, loop.Identity{}} {
		c := NewLoopCodec(NewLoopState(DefaultConfig()), inner)
		if a := testing.AllocsPerRun(200, func() {
			copy(buf, stream)
			for in := buf; len(in) > 0; in = in[min(len(in), 1460):] {
				if _, _, err := c.Open(in[:min(len(in), 1460)]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.Seal(batch, loop.Headroom, out); err != nil {
				t.Fatal(err)
			}
			if wire, err := c.Tick(loop.TickState{Reading: true, Heard: true}); err != nil || len(wire) == 0 {
				t.Fatalf("tick: % x, %v", wire, err)
			}
		}); a != 0 {
			t.Errorf("inner %T: %v allocations per round", inner, a)
		}
	}
}

// xorCodec stands in for TLS under the WebSocket: its wire is the stream XOR 0x5a, opened in
// place and sealed into out; its stream ends with "END".
type xorCodec struct{}

func xorBytes(b []byte) []byte {
	for i := range b {
		b[i] ^= 0x5a
	}
	return b
}

func (xorCodec) Open(in []byte) (int, []byte, error) { xorBytes(in); return len(in), nil, nil }

func (xorCodec) Seal(buf []byte, start int, out []byte) ([]byte, error) {
	return xorBytes(out[:copy(out, buf[start:])]), nil
}

func (xorCodec) CloseWrite() []byte { return []byte("END") }

// TestLoopCodecOverInner: frames are parsed from what the inner codec opened, and everything
// written (data, pongs, pings, the close) is sealed by it.
func TestLoopCodecOverInner(t *testing.T) {
	c := NewLoopCodec(NewLoopState(DefaultConfig()), xorCodec{})
	wire := xorBytes(append(frame(true, OpPing, []byte("p"), testKey), frame(true, OpBinary, []byte("hi"), testKey)...))
	payload, reply, err := openWire(t, c, wire)
	if err != nil || string(payload) != "hi" || !bytes.Equal(xorBytes(reply), []byte{0x8a, 0x01, 'p'}) {
		t.Fatalf("open: %q, reply % x, %v", payload, reply, err)
	}
	buf := append(make([]byte, loop.Headroom), "abc"...)
	out := make([]byte, 100)
	sealed, err := c.Seal(buf, loop.Headroom, out)
	if err != nil || !bytes.Equal(xorBytes(bytes.Clone(sealed)), []byte{0x82, 0x03, 'a', 'b', 'c'}) {
		t.Fatalf("seal: % x, %v", sealed, err)
	}
	ping, err := c.Tick(loop.TickState{})
	if err != nil || !bytes.Equal(xorBytes(bytes.Clone(ping)), []byte{0x89, 0x00}) {
		t.Fatalf("tick: % x, %v", ping, err)
	}
	tail := c.CloseWrite()
	if len(tail) != 7 || !bytes.Equal(xorBytes(bytes.Clone(tail[:4])), []byte{0x88, 0x02, 0x03, 0xe8}) || string(tail[4:]) != "END" {
		t.Fatalf("close: % x, want a sealed 1000 close and the inner's end", tail)
	}
}

// growingInner stands for TLS under the WebSocket: a codec that asks the loop for room.
type growingInner struct{ loop.Identity }

func (growingInner) Growth() int { return 16 << 10 }

// The loop sizes its reads by the outermost codec, so the WebSocket codec must pass its inner
// codec's Growth on; without it a TLS record that opens larger than its read would not fit.
func TestLoopCodecPassesGrowthOn(t *testing.T) {
	if g := NewLoopCodec(NewLoopState(Config{}), growingInner{}).Growth(); g != 16<<10 {
		t.Errorf("Growth over a growing inner codec = %d, want %d", g, 16<<10)
	}
	if g := NewLoopCodec(NewLoopState(Config{}), nil).Growth(); g != 0 {
		t.Errorf("Growth over plain TCP = %d, want 0", g)
	}
}

// TestLoopCodecPrime: frames the layer below opened before the codec took over (wss: gossl's
// detached plaintext) are parsed as Open parses what its inner codec opened, with the state
// carrying on: a frame cut there ends in the next Open, and the reply is sealed by the inner.
func TestLoopCodecPrime(t *testing.T) {
	c := NewLoopCodec(NewLoopState(DefaultConfig()), xorCodec{})
	data := frame(true, OpBinary, []byte("hello"), testKey)
	plain := append(frame(true, OpPing, []byte("p"), testKey), data[:4]...)
	n, reply, err := c.Prime(plain)
	if err != nil || n != 0 || !bytes.Equal(xorBytes(bytes.Clone(reply)), []byte{0x8a, 0x01, 'p'}) {
		t.Fatalf("prime: %d payload bytes, reply % x, %v; want none, a sealed pong", n, reply, err)
	}
	payload, _, err := openWire(t, c, xorBytes(bytes.Clone(data[4:])))
	if err != nil || string(payload) != "hello" {
		t.Fatalf("the frame primed in part: %q, %v", payload, err)
	}
	plain = frame(true, OpBinary, []byte("early"), testKey)
	if n, reply, err = c.Prime(plain); err != nil || string(plain[:n]) != "early" || reply != nil {
		t.Fatalf("prime of a whole frame: %q, % x, %v", plain[:n], reply, err)
	}
}
