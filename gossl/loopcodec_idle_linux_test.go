//go:build boringssl && cgo

package gossl

import (
	"crypto/tls"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/moonbridge/moonbridge/bench/procfs"
	"github.com/moonbridge/moonbridge/loop"
)

// BenchmarkLoopIdleSessionRSS: the process's resident memory per idle detached session, over
// 2000 sessions handed to one loop after a TLS 1.3 handshake with a crypto/tls client and a
// record each way, each with a backend socket. It counts everything the process keeps for a
// session (BoringSSL's state and what its handshake left in glibc's heap, the loop's session,
// the Go sockets of both ends), so it is an upper bound for the relay's share. Run it with
// -benchtime 1x, one process per run (memory freed by an earlier run is reused); it is a
// measurement, not a timed test. The tcp variant, the same sessions without TLS, is the
// baseline: the difference is what TLS costs an idle session.
func BenchmarkLoopIdleSessionRSS(b *testing.B) {
	b.Run("tcp", func(b *testing.B) { benchIdleSessions(b, false) })
	b.Run("boringssl", func(b *testing.B) { benchIdleSessions(b, true) })
}

func benchIdleSessions(b *testing.B, withTLS bool) {
	const sessions = 2000
	srv := benchServer(b, must(boringProvider()))
	cfg := clientConfig(b, "a.test")
	cfg.CurvePreferences = []tls.CurveID{tls.X25519}
	e, err := loop.New(loop.Config{Loops: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	for range b.N {
		before := rssKiB(b)
		for range sessions {
			if withTLS {
				idleSession(b, srv, cfg, e)
			} else {
				_, dialed := tcpPair(b)
				accepted, _ := tcpPair(b)
				register(b, e, loop.Side{Conn: accepted}, dialed)
			}
		}
		runtime.GC()
		debug.FreeOSMemory()
		b.ReportMetric(float64(rssKiB(b)-before)*1024/sessions, "rss-B/session")
	}
}

// idleSession hands one established session to e; its client and backend sockets stay open
// (closed at the end of the benchmark) and nothing more is sent.
func idleSession(b *testing.B, srv *Server, cfg *tls.Config, e *loop.Engine) {
	serverRaw, clientRaw := tcpPair(b)
	sc := srv.Wrap(serverRaw)
	cc := tls.Client(clientRaw, cfg)
	errc := make(chan error, 1)
	go func() {
		_, err := cc.Write([]byte("hello"))
		errc <- err
	}()
	buf := make([]byte, 5)
	if _, err := sc.Read(buf); err != nil {
		b.Fatal(err)
	}
	if _, err := sc.Write(buf); err != nil {
		b.Fatal(err)
	}
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	raw, plaintext, codec, err := DetachBoring(sc)
	if err != nil {
		b.Fatal(err)
	}
	_, dialed := tcpPair(b)
	register(b, e, loop.Side{Conn: raw, Codec: codec, Pending: plaintext}, dialed)
}

// register hands client and a backend socket to e; a codec that has a Free is freed at the end.
func register(b *testing.B, e *loop.Engine, client loop.Side, backend net.Conn) {
	_, err := e.Register(loop.Spec{
		Client:  client,
		Backend: loop.Side{Conn: backend},
		OnClose: func(loop.Result) {
			if c, ok := client.Codec.(LoopCodec); ok {
				c.Free()
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}
}

func rssKiB(b *testing.B) int64 {
	s, err := procfs.Take(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	return s.RSSKiB
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
