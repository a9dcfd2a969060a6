package relay

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// trackFrom tracks a handshake from client, accepted at "accepted", and appends client to
// *shed when the guard sheds it.
func trackFrom(h *handshakes, client string, accepted time.Time, shed *[]string) *connInfo {
	info := &connInfo{client: netip.MustParseAddrPort(client + ":1")}
	h.track(info, accepted, func() { *shed = append(*shed, client); info.leaveHandshakes() })
	return info
}

func TestHandshakesShedTheNetworkWithTheMostFirst(t *testing.T) {
	h := &handshakes{budget: 8}
	var shed []string
	now := time.Now()
	trackFrom(h, "10.0.9.1", now, &shed) // the oldest, alone in its network
	for i := range 4 {
		trackFrom(h, fmt.Sprintf("10.0.1.%d", i+1), now, &shed)
	}
	for i := range 3 {
		trackFrom(h, fmt.Sprintf("10.0.2.%d", i+1), now, &shed)
	}
	if len(shed) != 0 || h.count() != 8 {
		t.Fatalf("at the budget: shed %v, %d in progress; want none shed, 8", shed, h.count())
	}
	trackFrom(h, "10.0.3.1", now, &shed) // over the budget: one of 8 (budget/shedBatch) goes
	trackFrom(h, "10.0.3.2", now, &shed) // 10.0.1 and 10.0.2 hold 3 each now: 10.0.1's is older
	trackFrom(h, "10.0.3.3", now, &shed) // 10.0.2 holds 3, the most
	if want := []string{"10.0.1.1", "10.0.1.2", "10.0.2.1"}; !slices.Equal(shed, want) {
		t.Errorf("shed %v, want %v: the oldest of the network holding the most, never the lone handshake", shed, want)
	}
	if h.count() != 8 {
		t.Errorf("%d in progress after shedding, want the budget, 8", h.count())
	}
}

func TestHandshakesLeaveWhenTheSessionStartsOrTheConnectionCloses(t *testing.T) {
	h := &handshakes{budget: 100}
	var shed []string
	started := trackFrom(h, "10.0.0.1", time.Now(), &shed)
	closed := trackFrom(h, "10.0.0.2", time.Now(), &shed)
	started.startSession()
	closed.release()
	closed.release()
	if h.count() != 0 {
		t.Errorf("%d handshakes in progress after one became a session and one closed, want 0", h.count())
	}
}

func TestMemoryNearTheLimitShedsStalledHandshakesBeforeRefusing(t *testing.T) {
	used := uint64(95 << 20)
	w := newMemoryWatch(Memory{Limit: 100 << 20, Usage: func() (uint64, error) { return used, nil }}, zerolog.Nop())
	reclaims := 0
	w.reclaim = func() { reclaims++ }
	var shed []string
	long := time.Now().Add(-2 * stalledAfter)
	for i := range 3 {
		trackFrom(w.handshakes, fmt.Sprintf("10.0.0.%d", i+1), long, &shed)
	}
	trackFrom(w.handshakes, "10.0.1.1", time.Now(), &shed) // a login in progress, not stalled
	w.sample()
	if len(shed) != 3 || w.refusing.Load() {
		t.Fatalf("near the limit with 3 stalled handshakes: shed %v, refusing %v; want the 3 shed and logins still accepted",
			shed, w.refusing.Load())
	}
	w.sample() // still near it, nothing stalled left: memory given back, then logins refused
	if len(shed) != 3 || !w.refusing.Load() || reclaims != 1 {
		t.Errorf("near the limit with no stalled handshake left: shed %v, refusing %v, given back %d times; want the young one kept, memory given back once and logins refused",
			shed, w.refusing.Load(), reclaims)
	}
	used = 50 << 20
	w.sample()
	used = 95 << 20
	w.sample() // near it again within reclaimEvery: refused without giving back again
	if !w.refusing.Load() || reclaims != 1 {
		t.Errorf("near the limit again at once: refusing %v, given back %d times; want refused, given back once", w.refusing.Load(), reclaims)
	}
}

func TestMemoryGivenBackOnceAfterAHandshakeFlood(t *testing.T) {
	w := newMemoryWatch(Memory{Limit: 128 << 20, Usage: func() (uint64, error) { return 64 << 20, nil }}, zerolog.Nop())
	reclaims := 0
	w.reclaim = func() { reclaims++ }
	var shed []string
	var flood []*connInfo
	for i := range w.handshakes.budget / 2 {
		flood = append(flood, trackFrom(w.handshakes, fmt.Sprintf("10.0.%d.1", i%200), time.Now(), &shed))
	}
	now := time.Now()
	w.giveBackAfterFlood(now)
	if reclaims != 0 {
		t.Fatalf("memory given back %d times while the flood's handshakes are in progress, want 0", reclaims)
	}
	for _, info := range flood {
		info.release()
	}
	w.giveBackAfterFlood(now.Add(time.Second))
	w.giveBackAfterFlood(now.Add(time.Second + reclaimEvery))
	if reclaims != 1 {
		t.Errorf("memory given back %d times after the flood ended, want once", reclaims)
	}
}

func TestAcceptWaitsWhileAQuarterOfTheBudgetIsPending(t *testing.T) {
	h := &handshakes{budget: 8}
	h.accepted(context.Background())
	h.accepted(context.Background()) // 2 pending: a quarter of 8
	third := make(chan struct{})
	go func() { h.accepted(context.Background()); close(third) }()
	select {
	case <-third:
		t.Fatal("a third connection was accepted while 2 of a budget of 8 waited for their goroutine")
	case <-time.After(50 * time.Millisecond):
	}
	h.started()
	select {
	case <-third:
	case <-time.After(5 * time.Second):
		t.Fatal("the accept still waits after one pending connection started")
	}
	var shed []string
	for i := range 7 { // 2 pending and 6 tracked make the budget: the 7th sheds one
		trackFrom(h, fmt.Sprintf("10.0.0.%d", i+1), time.Now(), &shed)
	}
	if len(shed) != 1 {
		t.Errorf("2 pending and 7 tracked of a budget of 8: %d shed, want 1 (pending connections count)", len(shed))
	}
}
