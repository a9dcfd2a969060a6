//go:build boringssl && cgo

package boring_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/boring"
)

func newCtx(t *testing.T) *boring.Ctx {
	t.Helper()
	pair, err := gossl.SelfSigned([]string{"a.test"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := boring.NewCtx(boring.CtxConfig{MinVersion: 0x0303,
		Certs: []boring.CertPEM{{Chain: pair.CertPEM, Key: pair.KeyPEM}}})
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// collectUntil runs the garbage collector until ctx has want live C sessions, or fails after
// a bounded number of rounds (cleanups run on their own goroutine after a collection).
func collectUntil(t *testing.T, ctx *boring.Ctx, want int) {
	t.Helper()
	for range 200 {
		runtime.GC()
		if ctx.Conns() == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d C sessions still hold the context, want %d: a dropped engine was not freed", ctx.Conns(), want)
}

// TestDroppedEngineIsFreed: a connection that is never closed does not leak its SSL object.
func TestDroppedEngineIsFreed(t *testing.T) {
	ctx := newCtx(t)
	boring.NewEngine(ctx) // dropped without Free
	if got := ctx.Conns(); got != 1 {
		t.Fatalf("a new engine: %d C sessions, want 1", got)
	}
	collectUntil(t, ctx, 0)
}

// TestFreedEngineIsFreedOnce: Free stops the cleanup, so an engine freed and then collected is
// not freed again. A second free would drop the context's count below the engine still alive
// (or crash): a dropped engine's cleanup is the sign that the freed one's would have run too.
func TestFreedEngineIsFreedOnce(t *testing.T) {
	ctx := newCtx(t)
	alive := boring.NewEngine(ctx)
	func() {
		freed := boring.NewEngine(ctx)
		freed.Free()
		freed.Free()
	}()
	boring.NewEngine(ctx) // dropped: its cleanup runs in the same collections as freed's would
	collectUntil(t, ctx, 1)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := ctx.Conns(); got != 1 {
		t.Errorf("%d C sessions hold the context with one engine alive: a freed engine was freed again", got)
	}
	alive.Free()
	if got := ctx.Conns(); got != 0 {
		t.Errorf("after the last Free: %d C sessions, want 0", got)
	}
}
