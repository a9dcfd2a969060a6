package ws

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// scriptConn is an in-memory net.Conn: Read serves queued chunks, one per
// call, then io.EOF; Write records each call with the fake clock's time.
type scriptConn struct {
	mu     sync.Mutex
	chunks [][]byte
	writes []timedWrite
	clock  *fakeClock
	closed bool
}

type timedWrite struct {
	at   time.Duration
	data []byte
}

func (s *scriptConn) push(chunks ...[]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chunks = append(s.chunks, chunks...)
}

func (s *scriptConn) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, net.ErrClosed
	}
	if len(s.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.chunks[0])
	s.chunks[0] = s.chunks[0][n:]
	if len(s.chunks[0]) == 0 {
		s.chunks = s.chunks[1:]
	}
	return n, nil
}

func (s *scriptConn) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, net.ErrClosed
	}
	var at time.Duration
	if s.clock != nil {
		at = s.clock.Now()
	}
	s.writes = append(s.writes, timedWrite{at, bytes.Clone(p)})
	return len(p), nil
}

func (s *scriptConn) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

func (s *scriptConn) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// written returns the frames written so far, unmasked.
func (s *scriptConn) written(t *testing.T) []wireFrame {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []byte
	for _, w := range s.writes {
		all = append(all, w.data...)
	}
	return splitFrames(t, all)
}

func (s *scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }
func (s *scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)} }
func (s *scriptConn) SetDeadline(time.Time) error      { return nil }
func (s *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (s *scriptConn) SetWriteDeadline(time.Time) error { return nil }

// writesWithOp returns each written frame's opcode with its write time.
func (s *scriptConn) writesWithOp(t *testing.T) []struct {
	at time.Duration
	op OpCode
} {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []struct {
		at time.Duration
		op OpCode
	}
	for _, w := range s.writes {
		for _, f := range splitFrames(t, w.data) {
			out = append(out, struct {
				at time.Duration
				op OpCode
			}{w.at, f.op})
		}
	}
	return out
}

// wireFrame is one frame as seen on the wire.
type wireFrame struct {
	fin     bool
	op      OpCode
	masked  bool
	payload []byte
}

// splitFrames parses b as whole frames, unmasking payloads.
func splitFrames(t testing.TB, b []byte) []wireFrame {
	t.Helper()
	var out []wireFrame
	for len(b) > 0 {
		h, n, err := ParseHeader(b)
		if err != nil {
			t.Fatalf("written bytes do not parse as frames: %v", err)
		}
		if int64(len(b)-n) < h.Length {
			t.Fatalf("frame payload cut: want %d, have %d", h.Length, len(b)-n)
		}
		p := bytes.Clone(b[n : n+int(h.Length)])
		if h.Masked {
			MaskBytes(h.Mask, 0, p)
		}
		out = append(out, wireFrame{h.Fin, h.OpCode, h.Masked, p})
		b = b[n+int(h.Length):]
	}
	return out
}

// frame builds one frame's wire bytes; key 0 means unmasked.
func frame(fin bool, op OpCode, payload []byte, key uint32) []byte {
	h := Header{Fin: fin, OpCode: op, Length: int64(len(payload)), Masked: key != 0, Mask: key}
	b := AppendHeader(nil, h)
	start := len(b)
	b = append(b, payload...)
	if key != 0 {
		MaskBytes(key, 0, b[start:])
	}
	return b
}

const testKey = 0x3d21fa37 // RFC 6455 5.7's example key 37 fa 21 3d

// fakeClock runs AfterFunc callbacks synchronously inside Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*fakeTimer
}

type fakeTimer struct {
	c      *fakeClock
	at     time.Duration
	f      func()
	active bool
}

func (c *fakeClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now + d, f: f, active: true}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.at, t.active = t.c.now+d, true
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

// Advance moves time forward by d, firing due timers in order.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now + d
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at < c.timers[j].at })
		var due *fakeTimer
		for _, t := range c.timers {
			if t.active && t.at <= target {
				due = t
				break
			}
		}
		if due == nil {
			c.now = target
			c.mu.Unlock()
			return
		}
		c.now, due.active = due.at, false
		c.mu.Unlock()
		due.f()
	}
}

// testCert returns a server certificate for 127.0.0.1 and example.com and
// a pool that trusts it.
func testCert(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der := testutil.SelfSigned(t, key, "example.com", "127.0.0.1")
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
