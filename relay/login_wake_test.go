package relay

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// TestOnlineLoginWakesServer: a route that runs online logins and wakes its sleeping server.
// With hold, the verified player waits through the start and then reaches the backend with its
// forwarding, and the stream through the player's cipher is exact; without hold, the player
// reads the starting message through its cipher (the proxy's cipher was already on).
func TestOnlineLoginWakesServer(t *testing.T) {
	for _, hold := range []bool{true, false} {
		t.Run(map[bool]string{true: "hold", false: "disconnect"}[hold], func(t *testing.T) {
			backend := authtest.Backend{Forwarding: auth.ForwardBungeeCord}
			sleeping, release := reserveAddr(t) // until the proxy and the test's servers listen
			var once sync.Once
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				once.Do(func() {
					if _, err := testutil.ServeAt(t, sleeping, backend.Serve); err != nil {
						t.Errorf("starting the sleeping backend: %v", err)
					}
				})
			}))
			defer hook.Close()
			const route = "sleepy"
			setup := startLoginProxyWith(t, true, &backend, "go", "go", func(rt *Route) {
				rt.Name = route
				rt.Backends = []pool.Backend{{Addr: sleeping}}
				rt.Wake = &pool.Wake{Webhook: hook.URL, ReadyTimeout: 20 * time.Second, Hold: hold, StartingMessage: "starting up, join again soon"}
			}, Minecraft)
			release()

			player := authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions}
			pc := loginThrough(t, setup, Minecraft, player)
			if !hold {
				body, err := pc.ReadFrame()
				if err != nil || body[0] != mc.LoginDisconnectID || !bytes.Contains(body, []byte("starting up, join again soon")) {
					t.Fatalf("want the starting message through the cipher, read %q %v", body, err)
				}
				return
			}
			got := backendLogin(t, &backend)
			for range 3 { // the wake's readiness connects, closed at once, come first
				if !errors.Is(got.Err, io.EOF) {
					break
				}
				got = backendLogin(t, &backend)
			}
			if got.Err != nil {
				t.Fatalf("the woken backend refused the login: %v", got.Err)
			}
			checkForwarded(t, auth.ForwardBungeeCord, got.Forwarded, authfake.Profile("Alex"))
			readLoginSuccess(t, pc, false)
			echoThrough(t, pc, &backend, 300000)
			waitForMetric(t, setup.srv, "moonbridge_wakes_total", map[string]string{"route": route, "result": "ready"}, 1)
		})
	}
}
