package gossl

import (
	"crypto/rand"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

func TestBadInputEndsTheConnectionCleanly(t *testing.T) {
	hello := clientHello(t)
	random := make([]byte, 600)
	_, _ = rand.Read(random)
	randomHello := append([]byte{0x16, 0x03, 0x01, 0x02, 0x58}, random...)
	cases := map[string][]byte{
		"http request":             []byte("GET /mc HTTP/1.1\r\nHost: a.test\r\n\r\n"),
		"random bytes":             random,
		"ClientHello of random":    randomHello,
		"oversize record":          append([]byte{0x16, 0x03, 0x03, 0xff, 0xff}, random...),
		"vanishes mid-handshake":   hello[:len(hello)/2],
		"truncated record header":  hello[:3],
		"nothing at all":           nil,
		"ClientHello then garbage": append(append([]byte{}, hello...), random[:64]...),
	}
	forEachProvider(t, func(t *testing.T, p Provider) {
		srv, err := p.NewServer(testConfig(t))
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		for name, data := range cases {
			c := srv.Wrap(newScriptConn(data))
			err := c.HandshakeContext(t.Context())
			if err == nil {
				t.Errorf("%s: handshake succeeded", name)
			}
			if _, rerr := c.Read(make([]byte, 10)); rerr == nil {
				t.Errorf("%s: read after a failed handshake succeeded", name)
			}
			var tlsErr *TLSError
			if p.Name() == "boringssl" && !errors.As(err, &tlsErr) {
				t.Errorf("%s: error %v is not a *TLSError", name, err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("%s: close: %v", name, err)
			}
		}
	})
}

// TestTruncatedRecordAfterHandshake: a peer that stops halfway through a record and leaves.
func TestTruncatedRecordAfterHandshake(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		readErr := make(chan error, 1)
		ts := startServer(t, p, testConfig(t), func(c Conn) {
			_, err := c.Read(make([]byte, 100))
			readErr <- err
		})
		raw, err := net.Dial("tcp", ts.addr())
		if err != nil {
			t.Fatal(err)
		}
		rec := &recordingConn{Conn: raw}
		c := tlsClient(rec, clientConfig(t, "a.test"))
		if err := c.Handshake(); err != nil {
			t.Fatal(err)
		}
		rec.start()
		_, _ = c.Write(pattern(1000))
		rec.stop()
		_, _ = raw.Write(rec.recorded()[:500]) // half of the record, then gone
		raw.Close()
		// The peer's FIN inside a record: unexpected EOF, not the server's read deadline.
		if err := <-readErr; !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("reading a truncated record: %v, want unexpected EOF", err)
		}
	})
}

// TestPeerVanishesOverTCP: a real socket closed mid-handshake.
func TestPeerVanishesOverTCP(t *testing.T) {
	hello := clientHello(t)
	forEachProvider(t, func(t *testing.T, p Provider) {
		hsErr := make(chan error, 1)
		ts := startServer(t, p, testConfig(t), func(c Conn) { hsErr <- c.HandshakeContext(t.Context()) })
		raw, err := net.DialTimeout("tcp", ts.addr(), testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = raw.Write(hello[:len(hello)-7])
		time.Sleep(10 * time.Millisecond) // let the server read a part first; not a timed assertion
		raw.Close()
		// crypto/tls reports the cut record as unexpected EOF, BoringSSL's shim the socket's
		// EOF; either is the peer leaving, while the server's deadline firing is not.
		if err := <-hsErr; !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("handshake with a vanished peer: %v, want (unexpected) EOF", err)
		}
	})
}
