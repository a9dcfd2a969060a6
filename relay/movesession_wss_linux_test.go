package relay

import (
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// A wss session over BoringSSL moves into another server with its TLS 1.3 keys and sequence
// numbers and its WebSocket state: the stream goes on byte-exact both ways, on the new server's
// aead record layer. On the goroutines' data path it stays, and says why.
func TestMoveSessionsWSS(t *testing.T) {
	t.Run("wss_boringssl", func(t *testing.T) {
		backend := startBackend(t, false)
		routes := func(c *Config) {
			c.Routes = routeTo(backend.addr())
			c.TLS = tlsServer(t, "boringssl")
		}
		from, addr := startProxy(t, routes, WSS)
		to, _ := startProxy(t, routes, WSS)
		conn := dialClient(t, WSS, addr)
		t.Cleanup(func() { conn.Close() })
		exchange(t, conn, "p", 3000)
		if testDataPath == DataPathLoop {
			testutil.WaitFor(t, "the session to be on a loop", func() bool {
				return from.sessionList()[0].loopSession.Load() != nil
			})
		}
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
	})
}
