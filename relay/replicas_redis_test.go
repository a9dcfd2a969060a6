package relay

import (
	"bufio"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/replicas"
	"github.com/moonbridge/moonbridge/replicas/redistest"
)

// replica is one relay of a test's network, sharing its state on the test's Redis.
type replica struct {
	srv   *Server
	addr  string
	store *replicas.Store
	log   *logLines // the store's log
}

// testSettings are a test replica's: a heartbeat and block refresh of 100 ms, so that the tests
// wait less than the default second for what they carry, and a join that waits up to 2 s on
// Redis, so that a loaded test machine does not turn a join into one decided alone (the test of
// Redis away or slow sets the default bound).
func testSettings(redis *redistest.Server, id string) replicas.Settings {
	return replicas.Settings{Address: redis.Addr, KeyPrefix: "test:", ReplicaID: id,
		Heartbeat: 100 * time.Millisecond, BlockRefresh: 100 * time.Millisecond, JoinWait: 2 * time.Second}
}

// startReplica runs a relay whose state is shared as settings say, with mutate applied to its
// configuration.
func startReplica(t *testing.T, settings replicas.Settings, mutate func(*Config)) *replica {
	t.Helper()
	r := &replica{log: &logLines{}}
	r.store = replicas.New(settings, zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), r.log)))
	r.srv, r.addr = startProxy(t, func(c *Config) {
		c.Replicas = r.store
		if mutate != nil {
			mutate(c)
		}
	}, Minecraft)
	r.store.Start(r.srv.RoutePlayers)
	t.Cleanup(func() { r.store.Close() })
	return r
}

// startNetwork runs n replicas on one Redis, each with mutate applied.
func startNetwork(t *testing.T, n int, mutate func(*Config)) (*redistest.Server, []*replica) {
	t.Helper()
	redis := redistest.Start(t)
	var out []*replica
	for i := range n {
		out = append(out, startReplica(t, testSettings(redis, fmt.Sprintf("replica-%d", i)), mutate))
	}
	return redis, out
}

// cappedRoute is a route to an echoing game server with max_players.
func cappedRoute(t *testing.T, maxPlayers int) func(*Config) {
	backend := startGameServer(t, paperStatus)
	return func(c *Config) {
		c.Routes = routeTo(backend)
		c.Routes[0].Name = "survival"
		c.Routes[0].MaxPlayers = maxPlayers
	}
}

// join logs a player in from `from` and says whether it was let through (the game server's
// echo came back) rather than told the server is full; the connection stays open until the
// test ends, so the player stays counted.
func join(t *testing.T, from, addr string) (admitted bool) {
	t.Helper()
	conn := dialFrom(t, from, addr)
	conn.Write(append(handshakeFrame("h", mc.NextLogin), 1, 0))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	body, err := readFrameFrom(bufio.NewReader(conn))
	if err != nil {
		t.Fatalf("join from %s: %v", from, err)
	}
	conn.SetReadDeadline(time.Time{})
	if len(body) == 1 {
		return true
	}
	if !strings.Contains(string(body), DefaultFullMessage) {
		t.Fatalf("join from %s: %q, neither the echo nor the full message", from, body)
	}
	return false
}

// onlineOn is the online count of the route's server-list entry on a replica.
func onlineOn(t *testing.T, r *replica) float64 {
	return pingStatus(t, Minecraft, r.addr, "h")["players"].(map[string]any)["online"].(float64)
}

// Issue 42: the players of every replica add up in each one's server-list entry.
func TestReplicasCountPlayersTogether(t *testing.T) {
	_, nodes := startNetwork(t, 3, cappedRoute(t, 100))
	for i, r := range nodes {
		for j := range i + 1 {
			if !join(t, fmt.Sprintf("127.0.42.%d", 10*i+j+1), r.addr) {
				t.Fatal("a join under max_players was refused")
			}
		}
	}
	for _, r := range nodes {
		testutil.WaitFor(t, "6 players online on every replica", func() bool { return onlineOn(t, r) == 6 })
	}
}

// Issue 42: a max_players of 10 over 3 replicas admits 10 players in all, joining together.
func TestReplicasHoldMaxPlayersTogether(t *testing.T) {
	_, nodes := startNetwork(t, 3, cappedRoute(t, 10))
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for i := range 18 {
		wg.Go(func() {
			if join(t, fmt.Sprintf("127.0.43.%d", i+1), nodes[i%3].addr) {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, r := range nodes {
		if v, _ := metricValue(t, r.store, "moonbridge_replicas_redis_errors_total", nil); v != 0 {
			t.Fatalf("%v calls to Redis failed: joins were decided by one replica alone", v)
		}
	}
	if admitted != 10 {
		t.Errorf("%d players admitted over 3 replicas, want max_players 10", admitted)
	}
}
