package relay

import (
	"context"
	"crypto/tls"
	"maps"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/ws"
)

// wssProxies are an old and a new server of wss over BoringSSL in front of one echo backend,
// the old one's address and the new one's log.
func wssProxies(t *testing.T) (from, to *Server, addr string, toLog *logLines) {
	t.Helper()
	backend := startBackend(t, false)
	routes := func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.TLS = tlsServer(t, "boringssl")
	}
	from, addr = startProxy(t, routes, WSS)
	to, _ = startProxy(t, func(c *Config) { routes(c); toLog = captureLog(t, c) }, WSS)
	return from, to, addr, toLog
}

// waitOnLoopWSS waits until srv's one session is on its event loop, on the loops' data path.
func waitOnLoopWSS(t *testing.T, srv *Server) {
	t.Helper()
	if testDataPath == DataPathLoop {
		testutil.WaitFor(t, "the session to be on a loop", func() bool { return srv.sessionList()[0].loopSession.Load() != nil })
	}
}

// A wss session over BoringSSL moves into another server with its TLS 1.3 keys and sequence
// numbers and its WebSocket state: the stream goes on byte-exact both ways, on the new server's
// aead record layer, and its end line there has its TLS fields. On the goroutines' data path it stays, and says why.
func TestMoveSessionsWSS(t *testing.T) {
	t.Run("wss_boringssl", func(t *testing.T) {
		from, to, addr, toLog := wssProxies(t)
		conn := dialClient(t, WSS, addr)
		t.Cleanup(func() { conn.Close() })
		exchange(t, conn, "p", 3000)
		waitOnLoopWSS(t, from)
		r := from.MoveSessions(adoptInto(t, to))
		exchange(t, conn, "", 5000)
		if !movedOne(t, r) {
			return
		}
		if list := from.Sessions(); len(list) != 0 {
			t.Errorf("the old server still lists %+v", list)
		}
		if s := onlySession(t, to); s.Transport != "wss" {
			t.Errorf("the new server lists %+v", s)
		}
		exchange(t, conn, "", 20000)
		conn.Close()
		testutil.WaitFor(t, "the moved session to end in the new server", func() bool { return len(to.Sessions()) == 0 })
		// Its end line says what its TLS is, as the old server's would have, on the aead layer now.
		if n := toLog.count(`"protocol":"wss"`, `"tls_provider":"boringssl"`, `"tls_version":"TLS 1.3"`, `"tls_cipher":"TLS_`, `"tls_record_layer":"aead"`); n != 1 {
			t.Errorf("%d end lines with the TLS fields in the new server's log:\n%s", n, toLog.String())
		}
	})
}

// A wss session on TLS 1.2 stays, with its reason, and runs on in the old server.
func TestMoveSessionsWSSOnTLS12Stays(t *testing.T) {
	t.Run("wss_boringssl", func(t *testing.T) {
		from, to, addr, _ := wssProxies(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := ws.Dial(ctx, ws.DialConfig{URL: "wss://" + addr + "/mc",
			TLSConfig: &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		exchange(t, conn, "p", 3000)
		waitOnLoopWSS(t, from)
		want := map[string]int{"wss: not TLS 1.3": 1}
		if testDataPath != DataPathLoop {
			want = map[string]int{stayNotOnLoop: 1}
		}
		r := from.MoveSessions(adoptInto(t, to))
		if r.Moved != 0 || !maps.Equal(r.Stayed, want) {
			t.Errorf("report %+v: want %v", r, want)
		}
		exchange(t, conn, "", 5000)
		if len(to.Sessions()) != 0 || len(from.Sessions()) != 1 {
			t.Errorf("sessions: %d in the new server, %d in the old; want 0 and 1", len(to.Sessions()), len(from.Sessions()))
		}
	})
}
