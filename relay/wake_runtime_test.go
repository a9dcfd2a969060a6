package relay

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc/mctest"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// fakeRuntime is a container runtime whose server is an echo backend on addr, in this process.
type fakeRuntime struct {
	t    *testing.T
	addr string

	mu     sync.Mutex
	ln     net.Listener // nil while stopped
	starts int
	stops  int
}

func (r *fakeRuntime) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts++
	if r.ln != nil {
		return nil
	}
	ln, err := testutil.ServeAt(r.t, r.addr, mctest.Echo)
	r.ln = ln
	return err
}

func (r *fakeRuntime) Stop(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stops++
	if r.ln == nil {
		return errors.New("stopped twice")
	}
	err := r.ln.Close()
	r.ln = nil
	return err
}

func (r *fakeRuntime) counts() (starts, stops int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.starts, r.stops
}

// A route whose wake is a runtime starts it for a login, holds the login until the server
// answers, and stops it through the runtime once idle.
func TestWakeThroughRuntime(t *testing.T) {
	addr, release := reserveAddr(t)
	rt := &fakeRuntime{t: t, addr: addr}
	srv, proxy := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Name: "boxed", Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: addr}}, Wake: &pool.Wake{
			Runtime: rt, ReadyTimeout: 30 * time.Second, StopAfterIdle: 200 * time.Millisecond, Hold: true,
		}}}
	}, Minecraft)
	release()
	conn := dialClient(t, Minecraft, proxy)
	exchange(t, conn, "h", 1000)
	waitForMetric(t, srv, "moonbridge_wakes_total", map[string]string{"route": "boxed", "result": "ready"}, 1)
	conn.Close()
	waitForMetric(t, srv, "moonbridge_wakes_total", map[string]string{"route": "boxed", "result": "stopped"}, 1)
	if starts, stops := rt.counts(); starts != 1 || stops != 1 {
		t.Errorf("the runtime was started %d and stopped %d times, want once each", starts, stops)
	}
}

// A wake told two ways to start the server is refused.
func TestWakeWithRuntimeAndCommandIsRefused(t *testing.T) {
	_, err := pool.New(pool.Config{Route: "r", Backends: []pool.Backend{{Addr: "127.0.0.1:1"}},
		Wake: &pool.Wake{Runtime: &fakeRuntime{}, Command: []string{"true"}}})
	if err == nil {
		t.Fatal("a wake with a runtime and a command was accepted")
	}
}
