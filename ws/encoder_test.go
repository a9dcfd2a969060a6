package ws

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// gateConn hands each Write to the test over a channel and blocks until
// the test releases it, so a test can hold a write in flight.
type gateConn struct {
	loopConn
	writes  chan []byte
	release chan struct{}
}

func newGateConn() *gateConn {
	return &gateConn{writes: make(chan []byte, 16), release: make(chan struct{}, 16)}
}

func (g *gateConn) Write(p []byte) (int, error) {
	g.writes <- bytes.Clone(p)
	<-g.release
	return len(p), nil
}

func (g *gateConn) Read([]byte) (int, error) { return 0, net.ErrClosed }

func nextWrite(t *testing.T, g *gateConn) wireFrame {
	t.Helper()
	select {
	case w := <-g.writes:
		f := splitFrames(t, w)
		if len(f) != 1 {
			t.Fatalf("one socket write carried %d frames, want 1", len(f))
		}
		return f[0]
	case <-time.After(5 * time.Second):
		t.Fatal("no write within 5 s")
		return wireFrame{}
	}
}

func TestEncoderLonePacketLeavesAtOnce(t *testing.T) {
	testutil.CheckGoroutines(t)
	g := newGateConn()
	e := NewEncoder(NewConn(g, RoleClient, noKeepalive()))
	defer e.Close()
	g.release <- struct{}{}
	_, _ = e.Write([]byte("lone")) // no Flush: the Write alone must send it
	f := nextWrite(t, g)
	if f.op != OpBinary || !f.fin || !f.masked || string(f.payload) != "lone" {
		t.Fatalf("frame %+v, want one masked binary message \"lone\"", f)
	}
}

func TestEncoderCoalescesBehindInFlightWrite(t *testing.T) {
	testutil.CheckGoroutines(t)
	g := newGateConn()
	e := NewEncoder(NewConn(g, RoleClient, noKeepalive()))
	defer e.Close()
	_, _ = e.Write([]byte("first"))
	if f := nextWrite(t, g); string(f.payload) != "first" {
		t.Fatalf("first message %q", f.payload)
	}
	// "first" is in flight; twenty packets queue behind it.
	var want []byte
	for i := range 20 {
		p := bytes.Repeat([]byte{byte(i)}, 100+i)
		want = append(want, p...)
		_, _ = e.Write(p)
	}
	g.release <- struct{}{}
	if f := nextWrite(t, g); !bytes.Equal(f.payload, want) {
		t.Fatalf("second message has %d bytes, want the 20 queued packets (%d bytes)", len(f.payload), len(want))
	}
	g.release <- struct{}{}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
}

func TestEncoderSplitsAt64KiB(t *testing.T) {
	testutil.CheckGoroutines(t)
	g := newGateConn()
	e := NewEncoder(NewConn(g, RoleServer, noKeepalive()))
	defer e.Close()
	for range 8 {
		g.release <- struct{}{}
	}
	big := bytes.Repeat([]byte{7}, 3*MaxBatchSize+5)
	go func() { _, _ = e.Write(big) }()
	var got []byte
	for len(got) < len(big) {
		f := nextWrite(t, g)
		if len(f.payload) > MaxBatchSize {
			t.Fatalf("message of %d bytes, over %d", len(f.payload), MaxBatchSize)
		}
		got = append(got, f.payload...)
	}
	if !bytes.Equal(got, big) {
		t.Fatal("stream differs")
	}
}
