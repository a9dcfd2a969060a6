package gossl

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
)

func TestWriteSizesAndBigTransfers(t *testing.T) {
	sizes := []int{1, 2, 100, 1350, 16383, 16384, 16385, 65536 + 14, MaxBatch + 1, 1 << 20, 5 << 20}
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts := startServer(t, p, testConfig(t), echo)
		c := dial(t, ts.addr(), clientConfig(t, "a.test"))
		for _, n := range sizes {
			roundTrip(t, c, pattern(n))
		}
	})
}

// TestOneSocketWritePerWrite: each Write of up to MaxBatch bytes leaves in one socket write,
// under both providers.
func TestOneSocketWritePerWrite(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		sc, counted, _ := establishedSession(t, p)
		for _, n := range []int{1, 1350, 16385, 65536 + 14, MaxBatch} {
			before := counted.count()
			if _, err := sc.Write(pattern(n)); err != nil {
				t.Fatal(err)
			}
			if got := counted.count() - before; got != 1 {
				t.Errorf("Write of %d bytes made %d socket writes, want 1", n, got)
			}
		}
	})
}

// establishedSession is a server connection over loopback TCP whose crypto/tls client drains
// everything; it returns the counting socket under the server and the client's write.
func establishedSession(t testing.TB, p Provider) (Conn, *countingConn, func(p []byte) error) {
	t.Helper()
	srv, err := p.NewServer(testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	serverRaw, clientRaw := tcpPair(t)
	counted := &countingConn{Conn: serverRaw}
	sc := srv.Wrap(counted)
	t.Cleanup(func() { sc.Close() })
	cc := tlsClient(clientRaw, clientConfig(t, "a.test"))
	go func() { // the client reads so the server's writes never block
		buf := make([]byte, 1<<16)
		for {
			if _, err := cc.Read(buf); err != nil {
				return
			}
		}
	}()
	if err := sc.HandshakeContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := cc.Handshake(); err != nil {
		t.Fatal(err)
	}
	send := func(p []byte) error { _, err := cc.Write(p); return err }
	return sc, counted, send
}

// tcpPair is a connected loopback TCP pair.
func tcpPair(t testing.TB) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// TestRecordsSplitAtEveryByte: over net.Pipe each one-byte write of the client is one read of
// the server, so every handshake message and record arrives split at every byte boundary.
func TestRecordsSplitAtEveryByte(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		srv, err := p.NewServer(testConfig(t))
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		for _, v := range []string{"1.2", "1.3"} {
			serverEnd, clientEnd := net.Pipe()
			deadline := time.Now().Add(testTimeout)
			_ = serverEnd.SetDeadline(deadline)
			_ = clientEnd.SetDeadline(deadline)
			sc := srv.Wrap(serverEnd)
			go echo(sc)
			cfg := clientConfig(t, "a.test")
			cfg.MaxVersion = map[string]uint16{"1.2": 0x0303, "1.3": 0x0304}[v]
			c := tlsClient(&byteWriter{Conn: clientEnd}, cfg)
			roundTrip(t, c, pattern(20000))
			c.Close()
			sc.Close()
		}
	})
}

// byteWriter sends every write one byte at a time.
type byteWriter struct{ net.Conn }

func (w *byteWriter) Write(b []byte) (int, error) {
	for i := range b {
		if _, err := w.Conn.Write(b[i : i+1]); err != nil {
			return i, err
		}
	}
	return len(b), nil
}

func TestManyConcurrentSessions(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts := startServer(t, p, testConfig(t), echo)
		cfg := clientConfig(t, "a.test") // here: testCerts may call t.Fatal
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := dialTLS(ts.addr(), cfg)
				if err != nil {
					t.Errorf("session %d: dial: %v", i, err)
					return
				}
				defer c.Close()
				for j := range 5 {
					data := pattern(1 + (i*7919+j*104729)%70000)
					if err := echoOnce(c, data); err != nil {
						t.Errorf("session %d round %d: %v", i, j, err)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
}

// echoOnce is roundTrip for goroutines that may not call t.Fatal.
func echoOnce(c net.Conn, data []byte) error {
	errc := make(chan error, 1)
	go func() { _, err := c.Write(data); errc <- err }()
	got := make([]byte, len(data))
	for n := 0; n < len(got); {
		m, err := c.Read(got[n:])
		if err != nil {
			return err
		}
		n += m
	}
	if err := <-errc; err != nil {
		return err
	}
	if string(got) != string(data) {
		return fmt.Errorf("%d bytes came back altered", len(data))
	}
	return nil
}
