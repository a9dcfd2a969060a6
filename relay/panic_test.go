package relay

import (
	"crypto/cipher"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"testing"

	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
	"github.com/moonbridge/moonbridge/mc/cfb8"
)

// panickyStream is a cipher with a bug: once armed, it panics.
type panickyStream struct {
	cipher.Stream
	armed *atomic.Bool
}

func (p panickyStream) XORKeyStream(dst, src []byte) {
	if p.armed.Load() {
		panic("cipher bug")
	}
	p.Stream.XORKeyStream(dst, src)
}

// TestPanicClosesOnlyItsSession: a panic in one session's relaying (its login cipher's, on the
// up pump's goroutine or on its event loop) closes that session, with a log line and
// moonbridge_session_panics_total; the proxy and another player's session go on.
func TestPanicClosesOnlyItsSession(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardBungeeCord}
	var logins atomic.Int32
	var armed atomic.Bool
	setup := startLoginProxyWith(t, true, &backend, "go", "go", func(r *Route) {
		r.Login.NewCipher = func(key []byte) (cipher.Stream, cipher.Stream, error) {
			enc, dec, err := cfb8.NewAESPair(key)
			if logins.Add(1) == 2 { // the second player's cipher is the buggy one
				dec = panickyStream{Stream: dec, armed: &armed}
			}
			return enc, dec, err
		}
	}, Minecraft)
	good := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions})
	backendLogin(t, &backend)
	readLoginSuccess(t, good, false)
	bad := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Steve", Protocol: 767, Sessions: setup.sessions})
	backendLogin(t, &backend)
	readLoginSuccess(t, bad, false)

	armed.Store(true)
	if _, err := bad.Write([]byte("boom")); err != nil {
		t.Fatal(err)
	}
	path := "goroutine"
	if setup.srv.engine != nil {
		path = "loop"
	}
	waitForMetric(t, setup.srv, "moonbridge_session_panics_total", map[string]string{"path": path}, 1)
	waitForLines(t, setup.lines, 1, `"level":"error"`, "cipher bug", `"stack":`)
	waitForLines(t, setup.lines, 1, `"player":"Steve"`, `"close_reason":`, "cipher bug")
	if _, err := io.ReadAll(bad.R); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the panicked session's player is still connected")
	}
	echoThrough(t, good, &backend, 5000)
}
