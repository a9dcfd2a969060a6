package ws

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// noKeepalive is a Config for tests that do not look at the keepalive.
func noKeepalive() Config {
	c := DefaultConfig()
	c.PingInterval = 0
	return c
}

// readAll reads c to its end with a buffer of size bufSize.
func readAll(c *Conn, bufSize int) ([]byte, error) {
	var got []byte
	buf := make([]byte, bufSize)
	for {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return got, err
		}
	}
}

// fragmentedStream is a client stream with every header length form,
// control frames between fragments, an empty message and a final close.
func fragmentedStream() (wire, payload []byte, pongs [][]byte) {
	rng := rand.New(rand.NewPCG(1, 2))
	part := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		payload = append(payload, b...)
		return b
	}
	ping1, ping2 := []byte("p1"), bytes.Repeat([]byte{'x'}, MaxControlPayload)
	pongs = [][]byte{ping1, ping2}
	for _, f := range [][]byte{
		frame(false, OpBinary, part(300), 0x11223344),
		frame(true, OpPing, ping1, 0x55667788),
		frame(false, OpContinuation, part(10), 0x99aabbcc),
		frame(true, OpPong, nil, 0x01010101),
		frame(true, OpContinuation, part(70000), 0xddeeff00),
		frame(true, OpBinary, nil, 0x12345678),
		frame(true, OpBinary, part(5), 0x0badf00d),
		frame(true, OpPing, ping2, 0xcafebabe),
		frame(true, OpBinary, part(126), 0xfeedface),
		frame(true, OpClose, []byte{0x03, 0xe8, 'b', 'y', 'e'}, 0x31415926),
	} {
		wire = append(wire, f...)
	}
	return wire, payload, pongs
}

// checkStream reads one delivery of the stream and checks payload, pongs
// and the close echo.
func checkStream(t *testing.T, chunks [][]byte, bufSize int, payload []byte, pongs [][]byte) {
	t.Helper()
	sc := &scriptConn{}
	sc.push(chunks...)
	c := NewConn(sc, RoleServer, noKeepalive())
	got, err := readAll(c, bufSize)
	if err != io.EOF {
		t.Fatalf("read ended with %v, want io.EOF after a 1000 close", err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatalf("payload differs: got %d bytes, want %d", len(got), len(payload))
	}
	w := sc.written(t)
	if len(w) != len(pongs)+1 {
		t.Fatalf("wrote %d frames, want %d pongs and a close", len(w), len(pongs))
	}
	for i, p := range pongs {
		if w[i].op != OpPong || !bytes.Equal(w[i].payload, p) || w[i].masked {
			t.Fatalf("frame %d = %+v, want an unmasked pong echoing %q", i, w[i], p)
		}
	}
	if last := w[len(w)-1]; last.op != OpClose || !bytes.Equal(last.payload, []byte{0x03, 0xe8}) {
		t.Fatalf("last frame = %+v, want the 1000 close echoed", last)
	}
	if !sc.isClosed() {
		t.Fatal("connection not closed after the close handshake")
	}
}

// TestReadSplitAtEveryBoundary delivers the stream in two reads, split at
// every position around every header (all of them for the small frames),
// and in fixed-size pieces from 1 to 17 bytes.
func TestReadSplitAtEveryBoundary(t *testing.T) {
	wire, payload, pongs := fragmentedStream()
	for k := 0; k <= len(wire); k++ {
		if k > 400 && k < len(wire)-400 && k%997 != 0 {
			continue // inside the 70000-byte payload: sampled
		}
		checkStream(t, [][]byte{wire[:k], wire[k:]}, 1<<16, payload, pongs)
	}
	for size := 1; size <= 17; size++ {
		var chunks [][]byte
		for b := wire; len(b) > 0; b = b[min(size, len(b)):] {
			chunks = append(chunks, b[:min(size, len(b))])
		}
		checkStream(t, chunks, 1<<16, payload, pongs)
	}
	for _, bufSize := range []int{1, 2, 3, 13, 14, 15, 1460} {
		checkStream(t, [][]byte{wire}, bufSize, payload, pongs)
	}
}

// Conn-level violations and the RFC close code each must get.
// want is the payload the valid frames in front of the bad one deliver.
type badStream struct {
	name string
	wire []byte
	code CloseCode
	want string
}

func badStreams() []badStream {
	big := make([]byte, 2000)
	cases := []badStream{
		{"unmasked client frame", frame(true, OpBinary, []byte("hi"), 0), CloseProtocolError, ""},
		{"text frame", frame(true, OpText, []byte("hi"), testKey), CloseUnsupportedData, ""},
		{"continuation without a message", frame(true, OpContinuation, []byte("hi"), testKey), CloseProtocolError, ""},
		{"binary inside a fragmented message", append(frame(false, OpBinary, []byte("a"), testKey),
			frame(true, OpBinary, []byte("b"), testKey)...), CloseProtocolError, "a"},
		{"frame over the limit", frame(true, OpBinary, big, testKey), CloseMessageTooBig, ""},
		{"message over the limit", append(frame(false, OpBinary, big[:900], testKey),
			frame(true, OpContinuation, big[:900], testKey)...), CloseMessageTooBig, string(big[:900])},
		{"close of one byte", frame(true, OpClose, []byte{3}, testKey), CloseProtocolError, ""},
		{"close code 1005 on the wire", frame(true, OpClose, []byte{0x03, 0xed}, testKey), CloseProtocolError, ""},
		{"close code 999", frame(true, OpClose, []byte{0x03, 0xe7}, testKey), CloseProtocolError, ""},
		{"close reason not UTF-8", frame(true, OpClose, []byte{0x03, 0xe8, 0xff}, testKey), CloseInvalidPayload, ""},
	}
	for _, h := range badHeaders {
		cases = append(cases, badStream{h.name, h.wire, CloseProtocolError, ""})
	}
	return cases
}

func TestReadRejectsWithCloseCode(t *testing.T) {
	cfg := noKeepalive()
	cfg.MaxFrameSize, cfg.MaxMessageSize = 1000, 1500
	for _, tc := range badStreams() {
		good := frame(true, OpBinary, []byte("ok"), 0x0f0f0f0f)
		sc := &scriptConn{}
		sc.push(good, tc.wire)
		c := NewConn(sc, RoleServer, cfg)
		got, err := readAll(c, 4096)
		var pe *ProtocolError
		if !errors.As(err, &pe) || pe.Code != tc.code || pe.Reason == "" {
			t.Errorf("%s: read error %v, want close %d with a reason", tc.name, err, tc.code)
			continue
		}
		if string(got) != "ok"+tc.want {
			t.Errorf("%s: payload before the bad frame = %q, want %q", tc.name, got, "ok"+tc.want)
		}
		w := sc.written(t)
		if len(w) != 1 || w[0].op != OpClose {
			t.Errorf("%s: wrote %+v, want one close frame", tc.name, w)
			continue
		}
		code, reason, _ := ParseClosePayload(w[0].payload)
		if code != tc.code || string(reason) != pe.Reason || !sc.isClosed() {
			t.Errorf("%s: sent close %d %q (closed %v), want %d %q", tc.name, code, reason, sc.isClosed(), tc.code, pe.Reason)
		}
		if _, err2 := c.Read(make([]byte, 10)); err2 != err {
			t.Errorf("%s: a later Read returned %v, want the same error", tc.name, err2)
		}
	}
}

// A vanilla Minecraft frame of 2^21-1 bytes (plus its 3-byte VarInt) fits
// one WebSocket frame under the default limits.
func TestDefaultLimitsFitTheLargestMinecraftFrame(t *testing.T) {
	const mcFrame = 1<<21 - 1 + 3
	sc := &scriptConn{}
	payload := make([]byte, mcFrame)
	sc.push(frame(true, OpBinary, payload, testKey))
	c := NewConn(sc, RoleServer, noKeepalive())
	got, err := readAll(c, 1<<16)
	if len(got) != mcFrame || err != io.EOF {
		t.Fatalf("read %d bytes, err %v; want %d and io.EOF", len(got), err, mcFrame)
	}
}

func TestReadEndsOnPeerClose(t *testing.T) {
	cases := []struct {
		payload []byte
		want    error
	}{
		{nil, io.EOF},
		{[]byte{0x03, 0xe9}, io.EOF},
		{[]byte{0x03, 0xf5, 'b', 'u', 's', 'y'}, &CloseError{Code: CloseTryAgainLater, Reason: "busy"}},
	}
	for _, tc := range cases {
		sc := &scriptConn{}
		sc.push(frame(true, OpClose, tc.payload, testKey))
		c := NewConn(sc, RoleServer, noKeepalive())
		_, err := c.Read(make([]byte, 100))
		var ce *CloseError
		if errors.As(tc.want, &ce) {
			var got *CloseError
			if !errors.As(err, &got) || *got != *ce {
				t.Errorf("close % x: err %v, want %v", tc.payload, err, tc.want)
			}
		} else if err != tc.want {
			t.Errorf("close % x: err %v, want %v", tc.payload, err, tc.want)
		}
		w := sc.written(t)
		wantEcho := tc.payload
		if len(wantEcho) > 2 {
			wantEcho = wantEcho[:2]
		}
		if len(w) != 1 || w[0].op != OpClose || !bytes.Equal(w[0].payload, wantEcho) {
			t.Errorf("close % x: echoed %+v, want code % x", tc.payload, w, wantEcho)
		}
	}
}

// A normal close ends Read with io.EOF; its code and reason stay readable with PeerClose.
func TestPeerCloseKeepsCodeAndReason(t *testing.T) {
	cases := []struct {
		payload []byte
		code    CloseCode
		reason  string
		ok      bool
	}{
		{append([]byte{0x03, 0xe9}, "The server is restarting"...), CloseGoingAway, "The server is restarting", true},
		{[]byte{0x03, 0xf5, 'b', 'u', 's', 'y'}, CloseTryAgainLater, "busy", true},
		{nil, CloseNoStatus, "", true},
		{[]byte{0x03}, 0, "", false}, // malformed: the peer closed, but said nothing readable
	}
	for _, tc := range cases {
		sc := &scriptConn{}
		sc.push(frame(true, OpClose, tc.payload, testKey))
		c := NewConn(sc, RoleServer, noKeepalive())
		if _, _, ok := c.PeerClose(); ok {
			t.Fatal("PeerClose is ok before any read")
		}
		c.Read(make([]byte, 100))
		code, reason, ok := c.PeerClose()
		if code != tc.code || reason != tc.reason || ok != tc.ok || !c.PeerClosed() {
			t.Errorf("close % x: PeerClose = %d %q %v, PeerClosed %v; want %d %q %v, true",
				tc.payload, code, reason, ok, c.PeerClosed(), tc.code, tc.reason, tc.ok)
		}
	}
}

func TestReadTCPCloseMidFrameIsUnexpected(t *testing.T) {
	sc := &scriptConn{}
	f := frame(true, OpBinary, []byte("hello"), testKey)
	sc.push(f[:len(f)-2])
	c := NewConn(sc, RoleServer, noKeepalive())
	got, err := readAll(c, 100)
	if string(got) != "hel" || err != io.ErrUnexpectedEOF {
		t.Fatalf("got %q, %v; want \"hel\", io.ErrUnexpectedEOF", got, err)
	}
}

func TestClientRejectsMaskedServerFrame(t *testing.T) {
	sc := &scriptConn{}
	sc.push(frame(true, OpBinary, []byte("x"), testKey))
	c := NewConn(sc, RoleClient, noKeepalive())
	_, err := c.Read(make([]byte, 10))
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Code != CloseProtocolError {
		t.Fatalf("err %v, want 1002", err)
	}
	if w := sc.written(t); len(w) != 1 || !w[0].masked {
		t.Fatalf("client close frame %+v, want one masked frame", w)
	}
}

// TestBadInputLogNamesThePeer: the line about bad input carries the peer's address, which the
// connection keeps apart from its logger (peerLog) and joins only for the line.
func TestBadInputLogNamesThePeer(t *testing.T) {
	var logs bytes.Buffer
	cfg := noKeepalive()
	cfg.Logger = zerolog.New(&logs)
	sc := &scriptConn{}
	sc.push(badStreams()[0].wire)
	c := NewConn(sc, RoleServer, cfg)
	if _, err := readAll(c, 4096); err == nil {
		t.Fatal("a bad frame was read without an error")
	}
	line := logs.String()
	if !strings.Contains(line, "ws: closing connection on bad input") || !strings.Contains(line, `"remote":"127.0.0.2:0"`) {
		t.Errorf("bad input logged %q, want the line with the peer's address", line)
	}
}
