package bridge

import (
	"bytes"
	"context"
	"io"
	"net"
	"testing"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// TestPacketsQueuedDuringAWriteShareOneMessage holds the bridge's first WebSocket write in
// flight (the server end of a pipe reads only its first bytes), lets the game write twenty
// packets, and checks that they arrive as one message; then that a lone packet leaves on its
// own, without any further write from the game.
func TestPacketsQueuedDuringAWriteShareOneMessage(t *testing.T) {
	serverEnd, clientEnd := net.Pipe()
	b := startBridge(t, ws.DialConfig{URL: "ws://play.example.test/mc"}, func(b *Bridge) {
		b.dial = func(context.Context, ws.DialConfig) (*ws.Conn, error) {
			return ws.NewConn(clientEnd, ws.RoleClient, ws.Config{}), nil
		}
	})
	t.Cleanup(func() { serverEnd.Close() }) // runs before the bridge's Close, which then need not wait
	game := dialGame(t, b)
	request := login.AppendRequest(nil, gameHost, 25565, "Steve")
	if _, err := game.Write(request); err != nil {
		t.Fatal(err)
	}
	frames := &frameReader{r: serverEnd}
	frames.startFrame(t) // the first message is now in flight: its write waits for our reads

	var burst []byte
	for i := range 20 {
		packet := mc.AppendFrame(nil, 0x10, bytes.Repeat([]byte{byte(i)}, 50+i))
		burst = append(burst, packet...)
		if _, err := game.Write(packet); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WaitFor(t, "the bridge to queue the burst", func() bool { return b.bytesUp() == int64(len(request)+len(burst)) })

	if got := frames.rest(t); !bytes.Equal(got, request) {
		t.Fatalf("first message % x, want the handshake and Login Start", got)
	}
	frames.startFrame(t)
	if got := frames.rest(t); !bytes.Equal(got, burst) {
		t.Fatalf("second message has %d bytes, want the 20 packets written during the first write (%d bytes)", len(got), len(burst))
	}
	lone := mc.AppendFrame(nil, 0x11, []byte("lone"))
	if _, err := game.Write(lone); err != nil {
		t.Fatal(err)
	}
	frames.startFrame(t)
	if got := frames.rest(t); !bytes.Equal(got, lone) {
		t.Fatalf("third message % x, want the lone packet", got)
	}
}

// bytesUp is what every session has passed to the encoder so far.
func (b *Bridge) bytesUp() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var n int64
	for s := range b.sessions {
		n += s.up.Bytes.Load()
	}
	return n
}

// frameReader reads the client's masked frames off the wire, one part at a time.
type frameReader struct {
	r     io.Reader
	first [2]byte
}

// startFrame reads only the first two header bytes, which leaves the writer mid-write.
func (f *frameReader) startFrame(t *testing.T) {
	t.Helper()
	if _, err := io.ReadFull(f.r, f.first[:]); err != nil {
		t.Fatal(err)
	}
}

// rest reads the rest of the frame and returns its unmasked payload; it must be a whole
// binary message.
func (f *frameReader) rest(t *testing.T) []byte {
	t.Helper()
	head := make([]byte, ws.HeaderLen(f.first[0], f.first[1]))
	copy(head, f.first[:])
	if _, err := io.ReadFull(f.r, head[2:]); err != nil {
		t.Fatal(err)
	}
	h, _, err := ws.ParseHeader(head)
	if err != nil || h.OpCode != ws.OpBinary || !h.Fin || !h.Masked {
		t.Fatalf("header %+v (%v), want a masked, final binary frame", h, err)
	}
	payload := make([]byte, h.Length)
	if _, err := io.ReadFull(f.r, payload); err != nil {
		t.Fatal(err)
	}
	ws.MaskBytes(h.Mask, 0, payload)
	return payload
}
