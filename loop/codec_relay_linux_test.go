package loop

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// TestCodecSideIsOpenedAndSealed: the client speaks frameCodec in pieces that split headers and
// payloads anywhere; the backend gets exactly the payloads, the client gets every pong, the
// backend's bytes framed (in place and through out), and the close exchange ends both streams.
func TestCodecSideIsOpenedAndSealed(t *testing.T) {
	e := newEngine(t, Config{Loops: 1, BufferSize: 1000})
	p := newListeners(t).open(t, e, func(s *Spec) { s.Client.Codec = &frameCodec{} })
	up, down := randomBytes(300_000, 5), randomBytes(300_000, 6)
	wire, pings := encodeFrames(up, 7)
	var wg sync.WaitGroup
	var gotUp, gotDown []byte
	wg.Add(4)
	go func() {
		defer wg.Done()
		for _, c := range chunks(wire, 8) {
			p.player.Write(c)
		}
		p.player.Write([]byte{0, 'C'})
	}()
	upDone := make(chan struct{})
	go func() {
		defer wg.Done()
		writeChunks(p.backend, down, 9)
		<-upDone // the backend's end goes out as the client's close frame: after it, pings get no pong
		p.backend.CloseWrite()
	}()
	go func() { defer wg.Done(); gotUp = readAll(t, p.backend); close(upDone) }()
	go func() { defer wg.Done(); gotDown = readAll(t, p.player) }()
	wg.Wait()
	payload, ops := decodeFrames(gotDown)
	if !bytes.Equal(gotUp, up) || !bytes.Equal(payload, down) {
		t.Fatalf("up equal %v (%d bytes), down equal %v (%d bytes)", bytes.Equal(gotUp, up), len(gotUp), bytes.Equal(payload, down), len(payload))
	}
	if len(ops) == 0 || ops[len(ops)-1] != 'C' || bytes.Count(ops, []byte("O")) != pings {
		t.Fatalf("client got ops %q..., want a pong per ping (%d) and a close last", ops[:min(len(ops), 20)], pings)
	}
	if r := p.result(t); r.Err != nil || r.Up != int64(len(up)) || r.Down != int64(len(down)) {
		t.Fatalf("result %+v", r)
	}
}

// TestCodecErrorEndsTheSession: a codec's error is the close reason, with the side and "open".
func TestCodecErrorEndsTheSession(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, func(s *Spec) { s.Client.Codec = &frameCodec{} })
	p.player.Write([]byte{3, 'a', 'b', 'c', 0, 'X'})
	se := sideError(t, p.result(t))
	if se.Side != Client.String() || se.Op != "open" || se.Err != errBadOp {
		t.Fatalf("reason %v, want the client's codec error", se)
	}
	if got := readAll(t, p.backend); string(got) != "abc" {
		t.Fatalf("backend got %q, want the bytes before the bad frame", got)
	}
}

// TestKeepaliveTicksThenDeadPeer: a silent client gets keepalive pings from the loop's wheel
// and, after deadAfter silent periods, the session ends with the dead-peer reason.
func TestKeepaliveTicksThenDeadPeer(t *testing.T) {
	e := newEngine(t, Config{Loops: 1, Tick: time.Millisecond})
	codec := &tickingCodec{period: 5 * time.Millisecond, deadAfter: 6}
	p := newListeners(t).open(t, e, func(s *Spec) { s.Client.Codec = codec })
	r := p.result(t)
	if se := sideError(t, r); se.Side != Client.String() || se.Op != "keepalive" || se.Err != errDeadPeer {
		t.Fatalf("reason %v, want the client's dead peer", se)
	}
	_, ops := decodeFrames(readAll(t, p.player))
	if bytes.Count(ops, []byte("K")) < 2 {
		t.Fatalf("client got ops %q before the end, want keepalive pings", ops)
	}
}

// TestEnderHasTheLastWord: a session closed for a reason sends the client's codec's End bytes
// before the socket closes; a codec whose Period is 0 is never ticked.
func TestEnderHasTheLastWord(t *testing.T) {
	e := newEngine(t, Config{Loops: 1, Tick: time.Millisecond})
	codec := &endingCodec{tickingCodec: tickingCodec{deadAfter: 1}} // period 0: no keepalive
	p := newListeners(t).open(t, e, func(s *Spec) { s.Client.Codec = codec })
	p.player.Write([]byte{2, 'h', 'i'})
	got := make([]byte, 2)
	p.backend.SetReadDeadline(time.Now().Add(waitFor))
	if _, err := io.ReadFull(p.backend, got); err != nil || string(got) != "hi" {
		t.Fatalf("backend got %q, %v", got, err)
	}
	time.Sleep(20 * time.Millisecond) // twenty wheel ticks: a codec that asked for none gets none
	p.sess.Close(nil)
	if r := p.result(t); r.Err != ErrCloseRequested {
		t.Fatalf("reason %v", r.Err)
	}
	_, ops := decodeFrames(readAll(t, p.player))
	if string(ops) != "E" || codec.ticks != 0 {
		t.Fatalf("client got ops %q after %d ticks, want the last words only and no tick", ops, codec.ticks)
	}
}

// TestRepliesToAPeerThatDoesNotReadAreBounded: a client that sends pings but reads nothing,
// while the backend fills it up, is closed once its pongs pass the bound.
func TestRepliesToAPeerThatDoesNotReadAreBounded(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, func(s *Spec) { s.Client.Codec = &frameCodec{} })
	go func() {
		p.backend.SetWriteDeadline(time.Now().Add(waitFor))
		p.backend.Write(make([]byte, 32<<20))
	}()
	testutil.WaitFor(t, "the loop to hold bytes for the client", func() bool { return e.Stats().Held == 1 })
	pings := bytes.Repeat([]byte{0, 'P'}, 1<<20)
	go func() {
		p.player.SetWriteDeadline(time.Now().Add(waitFor))
		p.player.Write(pings)
	}()
	if se := sideError(t, p.result(t)); se.Side != Client.String() || !errors.Is(se, ErrHeldOverflow) {
		t.Fatalf("reason %v, want the client's held overflow", se)
	}
}

// chunks cuts b into pieces of 1 to max bytes.
func chunks(b []byte, seed byte) [][]byte {
	sizes := randomBytes(len(b), seed)
	var out [][]byte
	for i := 0; len(b) > 0; i++ {
		k := min(len(b), 1+int(sizes[i])%13)
		if i%50 == 49 {
			k = min(len(b), 4000) // now and then a large write, so that reads fill the buffer
		}
		out = append(out, b[:k])
		b = b[k:]
	}
	return out
}

// noHalfCloseCodec is frameCodec on a side whose stream ends whole (NoHalfClose).
type noHalfCloseCodec struct{ frameCodec }

func (*noHalfCloseCodec) NoHalfClose() {}

// TestNoHalfCloseEndsTheSession: when the backend ends its stream, a client side without
// half-close gets its codec's close and the session ends, though the client sends nothing more;
// a client side with half-close (TestHalfCloseIsPassedOn) keeps its direction open.
func TestNoHalfCloseEndsTheSession(t *testing.T) {
	e := newEngine(t, Config{Loops: 1})
	p := newListeners(t).open(t, e, func(s *Spec) { s.Client.Codec = &noHalfCloseCodec{} })
	p.backend.CloseWrite()
	if _, ops := decodeFrames(readAll(t, p.player)); string(ops) != "C" {
		t.Fatalf("client got ops %q, want the codec's close then EOF", ops)
	}
	if r := p.result(t); r.Err != nil || r.FirstEnd != Backend {
		t.Fatalf("result %+v, want a clean end that the backend began", r)
	}
}
