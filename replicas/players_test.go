package replicas

import (
	"errors"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/replicas/redistest"
)

// testStore is a Store of replica id on server that the test drives itself (not started), with
// counts saying perRoute at version.
func testStore(t *testing.T, server *redistest.Server, id string) *Store {
	t.Helper()
	s := New(Settings{Address: server.Addr, KeyPrefix: "unit:", ReplicaID: id, Heartbeat: 100 * time.Millisecond,
		JoinWait: 2 * time.Second}, zerolog.New(zerolog.NewTestWriter(t)))
	s.share = func(int) {}
	t.Cleanup(func() { s.Close() })
	return s
}

// seatOf is a join's count: here players with it, at version.
func seatOf(here int, version uint64) func() (int, uint64) {
	return func() (int, uint64) { return here, version }
}

func counting(perRoute map[string]int, version uint64) Counts {
	return func() (map[string]int, uint64) { return perRoute, version }
}

// Issue 42: a join past max_players over the live replicas together is refused, and one that
// fits is admitted.
func TestSeatCountsEveryLiveReplica(t *testing.T) {
	server := redistest.Start(t)
	a, b := testStore(t, server, "a"), testStore(t, server, "b")
	if err := a.Seat("r", 5, seatOf(3, 1)); err != nil {
		t.Fatalf("3 players of 5 on one replica: %v", err)
	}
	if err := b.Seat("r", 5, seatOf(3, 1)); !errors.Is(err, ErrNetworkFull) {
		t.Errorf("3 more on another replica, 6 of 5: %v, want ErrNetworkFull", err)
	}
	if err := b.Seat("r", 5, seatOf(2, 2)); err != nil {
		t.Errorf("2 more on another replica, 5 of 5: %v", err)
	}
}

// Issue 42: a heartbeat that read the counts before a join (an older version) does not undo the
// join's count; the next heartbeat writes the newer one.
func TestALateHeartbeatDoesNotUndoAJoin(t *testing.T) {
	server := redistest.Start(t)
	a, b := testStore(t, server, "a"), testStore(t, server, "b")
	if err := a.Seat("r", 10, seatOf(3, 5)); err != nil {
		t.Fatal(err)
	}
	a.counts = counting(map[string]int{"r": 2}, 4)
	a.heartbeat()
	b.counts = counting(map[string]int{"r": 0}, 1)
	b.heartbeat()
	if got := b.OtherPlayers("r"); got != 3 {
		t.Errorf("after a late heartbeat the other replica sees %d players, want the join's 3", got)
	}
	a.counts = counting(map[string]int{"r": 1}, 6)
	a.heartbeat()
	b.heartbeat()
	if got := b.OtherPlayers("r"); got != 1 {
		t.Errorf("after a newer heartbeat the other replica sees %d players, want 1", got)
	}
}

// Issue 42: a replica whose heartbeats stop stops counting after three of them.
func TestAReplicaThatStopsStopsCounting(t *testing.T) {
	server := redistest.Start(t)
	a, b := testStore(t, server, "a"), testStore(t, server, "b")
	a.counts, b.counts = counting(map[string]int{"r": 4}, 1), counting(map[string]int{"r": 0}, 1)
	a.heartbeat()
	b.heartbeat()
	if got := b.OtherPlayers("r"); got != 4 {
		t.Fatalf("the other replica sees %d players, want 4", got)
	}
	time.Sleep(3*100*time.Millisecond + 50*time.Millisecond)
	b.heartbeat()
	if got := b.OtherPlayers("r"); got != 0 {
		t.Errorf("%d players of a replica silent for three heartbeats still count, want 0", got)
	}
}
