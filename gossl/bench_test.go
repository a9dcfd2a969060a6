package gossl

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"testing"
)

var benchSizes = []int{64, 512, 1350, 4 << 10, 16 << 10, 64 << 10}

// benchProviders runs a benchmark under each provider compiled in, BoringSSL with each record
// layer: boringssl (SSL_read/SSL_write), boringssl-aead (the shim's AEAD record layer, which
// the crypto/tls client's TLS 1.3 sessions get) and go (crypto/tls).
func benchProviders(b *testing.B, run func(b *testing.B, p Provider)) {
	b.Run("go", func(b *testing.B) { run(b, GoProvider()) })
	if p, err := boringProvider(); err == nil {
		b.Run("boringssl", func(b *testing.B) { run(b, withRecordLayer(p, RecordLayerSSL)) })
		b.Run("boringssl-aead", func(b *testing.B) { run(b, withRecordLayer(p, RecordLayerAEAD)) })
	}
}

// benchSession is an established session over loopback TCP; the server's socket counts writes
// and can be switched to replay recorded client ciphertext.
type benchSession struct {
	server Conn
	raw    *replayConn
	client *tls.Conn
	rec    *recordingConn
}

func newBenchSession(b *testing.B, srv *Server) *benchSession {
	serverRaw, clientRaw := tcpPair(b)
	s := &benchSession{raw: &replayConn{countingConn: countingConn{Conn: serverRaw}}, rec: &recordingConn{Conn: clientRaw}}
	s.server = srv.Wrap(s.raw)
	cfg := clientConfig(b, "a.test")
	cfg.CurvePreferences = []tls.CurveID{tls.X25519}
	s.client = tls.Client(s.rec, cfg)
	errc := make(chan error, 1)
	go func() { errc <- s.client.Handshake() }()
	if err := s.server.HandshakeContext(b.Context()); err != nil {
		b.Fatal(err)
	}
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	return s
}

func benchServer(b *testing.B, p Provider) *Server {
	srv, err := p.NewServer(testConfig(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv
}

// BenchmarkSeal: server Writes of each size, sealed and sent to a client that drains the raw
// socket (it does not decrypt, so the client costs only its reads).
func BenchmarkSeal(b *testing.B) {
	benchProviders(b, func(b *testing.B, p Provider) {
		srv := benchServer(b, p)
		for _, size := range benchSizes {
			b.Run(fmt.Sprint(size), func(b *testing.B) {
				s := newBenchSession(b, srv)
				var wg sync.WaitGroup
				wg.Add(1)
				go func() { defer wg.Done(); _, _ = io.Copy(io.Discard, s.rec.Conn) }()
				data := pattern(size)
				before := s.raw.count()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if _, err := s.server.Write(data); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(s.raw.count()-before)/float64(b.N), "writes/op")
				s.server.Close()
				wg.Wait()
			})
		}
	})
}

// BenchmarkOpen: server Reads of each size from client ciphertext recorded beforehand (so the
// client's sealing is not timed) and replayed from memory.
func BenchmarkOpen(b *testing.B) {
	benchProviders(b, func(b *testing.B, p Provider) {
		srv := benchServer(b, p)
		for _, size := range benchSizes {
			b.Run(fmt.Sprint(size), func(b *testing.B) {
				per := max(1, (8<<20)/size) // messages recorded per session
				buf := make([]byte, size)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				var s *benchSession
				var store bytes.Buffer
				for i := range b.N {
					if i%per == 0 {
						b.StopTimer()
						s = recordedSession(b, srv, size, per, &store)
						runtime.GC() // the recording's garbage is not the reader's cost
						b.StartTimer()
					}
					if _, err := io.ReadFull(s.server, buf); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// BenchmarkOpenBatch: the relay's read shape. The server reads into a 64 KiB buffer, so one
// Read opens every record that one socket read brought; one op is one record of that size.
func BenchmarkOpenBatch(b *testing.B) {
	benchProviders(b, func(b *testing.B, p Provider) {
		srv := benchServer(b, p)
		for _, size := range benchSizes {
			b.Run(fmt.Sprint(size), func(b *testing.B) {
				buf := make([]byte, 64<<10)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				var store bytes.Buffer
				for left := b.N; left > 0; {
					n := min(left, max(1, (8<<20)/size))
					b.StopTimer()
					s := recordedSession(b, srv, size, n, &store)
					runtime.GC()
					b.StartTimer()
					readAll(b, s.server, buf, n*size)
					left -= n
				}
			})
		}
	})
}

// readAll reads want bytes from c in reads of up to len(buf).
func readAll(b *testing.B, c Conn, buf []byte, want int) {
	for want > 0 {
		n, err := c.Read(buf)
		if err != nil {
			b.Fatal(err)
		}
		want -= n
	}
}

// recordedSession records count client writes of size bytes into store (reused, so sessions do
// not churn the heap) and makes the server read them.
func recordedSession(b *testing.B, srv *Server, size, count int, store *bytes.Buffer) *benchSession {
	s := newBenchSession(b, srv)
	store.Reset()
	s.rec.buf = store
	data := pattern(size)
	s.rec.start()
	for range count {
		if _, err := s.client.Write(data); err != nil {
			b.Fatal(err)
		}
	}
	s.rec.stop()
	s.raw.replay(store.Bytes())
	return s
}

// BenchmarkHandshake: full TLS 1.3 handshakes with ECDSA P-256 and X25519, client (crypto/tls)
// and server both timed, no resumption.
func BenchmarkHandshake(b *testing.B) {
	benchProviders(b, func(b *testing.B, p Provider) {
		srv := benchServer(b, p)
		cfg := clientConfig(b, "a.test")
		cfg.CurvePreferences = []tls.CurveID{tls.X25519}
		b.ReportAllocs()
		for range b.N {
			serverEnd, clientEnd := net.Pipe()
			sc := srv.Wrap(serverEnd)
			errc := make(chan error, 1)
			go func() { errc <- sc.HandshakeContext(b.Context()); sc.Close() }()
			cc := tls.Client(clientEnd, cfg)
			if err := cc.Handshake(); err != nil {
				b.Fatal(err)
			}
			go io.Copy(io.Discard, cc) // takes the session tickets, then EOF
			if err := <-errc; err != nil {
				b.Fatal(err)
			}
			cc.Close()
		}
	})
}

// replayConn reads from the socket until replay is called, then from the recorded bytes.
type replayConn struct {
	countingConn
	mu  sync.Mutex
	src *bytes.Reader
}

func (c *replayConn) replay(data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.src = bytes.NewReader(data)
}

func (c *replayConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	src := c.src
	c.mu.Unlock()
	if src != nil {
		return src.Read(b)
	}
	return c.countingConn.Read(b)
}
