package relay

import (
	"bufio"
	"fmt"
	"net"
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
	r.store.Start(r.srv.RoutePlayers, r.srv.ShareLoginMeter)
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
	_, _, admitted = joinConn(t, from, addr)
	return admitted
}

// joinConn is join, with the player's connection and the reader of its echo, for a test that
// goes on playing.
func joinConn(t *testing.T, from, addr string) (conn net.Conn, echo *bufio.Reader, admitted bool) {
	t.Helper()
	conn = dialFrom(t, from, addr)
	conn.Write(append(handshakeFrame("h", mc.NextLogin), 1, 0))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	echo = bufio.NewReader(conn)
	body, err := readFrameFrom(echo)
	if err != nil {
		t.Fatalf("join from %s: %v", from, err)
	}
	conn.SetReadDeadline(time.Time{})
	if len(body) == 1 {
		return conn, echo, true
	}
	if !strings.Contains(string(body), DefaultFullMessage) {
		t.Fatalf("join from %s: %q, neither the echo nor the full message", from, body)
	}
	return conn, echo, false
}

// onlineOn is the online count of the route's server-list entry on a replica.
func onlineOn(t *testing.T, r *replica) float64 {
	return pingStatus(t, Minecraft, r.addr, "h")["players"].(map[string]any)["online"].(float64)
}

// Issue 42: the players of every replica add up in each one's server-list entry and metrics,
// per route and in total.
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
		waitForMetric(t, r.store, "moonbridge_replicas_network_players", map[string]string{"route": "survival"}, 6)
		waitForMetric(t, r.store, "moonbridge_replicas_network_players_all_routes", nil, 6)
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

// Issue 42: an address blocked on one replica is refused on the others within a second, and
// clearing the block list on one clears it for all.
func TestReplicasShareBlocks(t *testing.T) {
	_, nodes := startNetwork(t, 2, func(c *Config) {
		c.Routes = routeTo(testutil.ClosedPort(t))
		c.Defence.Block = Block{After: 2, Window: 10 * time.Second, For: time.Minute}
	})
	a, b := nodes[0], nodes[1]
	if !statusAnswered(t, "127.0.44.1", b.addr) {
		t.Fatal("an address nobody blocked got no answer")
	}
	sendGarbage(t, "127.0.44.1", a.addr, 2)
	blocked := time.Now()
	if !testutil.Within(time.Second, func() bool { return !statusAnswered(t, "127.0.44.1", b.addr) }) {
		t.Fatal("an address blocked on one replica was still answered by another after a second")
	}
	t.Logf("refused by the other replica %v after the block", time.Since(blocked))
	waitForMetric(t, b.srv, refusedSeries, map[string]string{"reason": refusedBlocked}, 1)
	if !statusAnswered(t, "127.0.44.2", b.addr) {
		t.Error("an address nobody blocked was refused")
	}
	a.srv.ClearBlockList()
	if !testutil.Within(time.Second, func() bool { return statusAnswered(t, "127.0.44.1", b.addr) }) {
		t.Error("the block list cleared on one replica still refuses on another after a second")
	}
}

// Issue 42: a network's new connections count on every replica together: once one replica has
// let the network's burst in, another refuses it (within a flush of the counts) before its own
// bucket runs out.
func TestReplicasShareNetworkRates(t *testing.T) {
	backend := startGameServer(t, paperStatus)
	_, nodes := startNetwork(t, 2, func(c *Config) {
		c.Routes = routeTo(backend)
		c.Limits.ConnectionRatePerNetwork = 0.01 // the shared window: a minute
		c.Limits.ConnectionBurstPerNetwork = 4
	})
	a, b := nodes[0], nodes[1]
	awaitFreshWindow(time.Minute)
	for i := range 4 {
		if status := askStatus(t, dialFrom(t, fmt.Sprintf("127.0.45.%d", i+1), a.addr)); !strings.Contains(status, "Paper") {
			t.Fatalf("connection %d of the network's burst: %q, want the server's answer", i+1, status)
		}
	}
	time.Sleep(250 * time.Millisecond) // a's counts reach Redis
	refused := false
	for i := range 4 { // b's own bucket lets 4 in
		if refused = strings.Contains(askStatus(t, dialFrom(t, fmt.Sprintf("127.0.45.%d", i+10), b.addr)), "over all replicas"); refused {
			break
		}
		time.Sleep(250 * time.Millisecond) // b's count reaches Redis, and the total comes back
	}
	if !refused {
		t.Error("the other replica let the network in up to its own burst, as if alone")
	}
	waitForMetric(t, b.srv, refusedSeries, map[string]string{"reason": refusedNetworkRate}, 1)
}

// awaitFreshWindow waits, when the current shared-rate window of this length (counted from the
// Unix epoch, as the replicas count them) ends within 5 s, for the next one, so that a test's
// events fall in one window.
func awaitFreshWindow(window time.Duration) {
	if left := window - time.Duration(time.Now().UnixNano()%int64(window)); left < 5*time.Second {
		time.Sleep(left)
	}
}

// timedJoin is join, and how long it took.
func timedJoin(t *testing.T, from, addr string) (bool, time.Duration) {
	start := time.Now()
	admitted := join(t, from, addr)
	return admitted, time.Since(start)
}

// Issue 42, Redis away or slow: while Redis hangs a join waits at most its bound; while it is
// gone the replicas go on alone (sessions up, joins admitted, each its own count), say so once
// in the log and in the metrics; once it is back the counts and a block made meanwhile reach the
// others again, and that is said once too.
func TestReplicasGoOnWhileRedisIsAway(t *testing.T) {
	redis := redistest.Start(t)
	route := cappedRoute(t, 100)
	var nodes []*replica
	for _, id := range []string{"a", "b"} {
		settings := testSettings(redis, id)
		settings.JoinWait, settings.Timeout = 50*time.Millisecond, 3*time.Second
		nodes = append(nodes, startReplica(t, settings, func(c *Config) {
			route(c)
			c.Defence.Block = Block{After: 2, Window: 10 * time.Second, For: time.Minute}
		}))
	}
	a, b := nodes[0], nodes[1]
	playerA, playerB := dialFrom(t, "127.0.46.1", a.addr), dialFrom(t, "127.0.46.2", b.addr)
	exchange(t, playerA, "h", 10)
	exchange(t, playerB, "h", 10)
	testutil.WaitFor(t, "2 players online on a", func() bool { return onlineOn(t, a) == 2 })

	redis.Pause()
	admitted, took := timedJoin(t, "127.0.46.3", a.addr)
	if !admitted || took < 50*time.Millisecond || took > time.Second {
		t.Errorf("a join while Redis hangs: admitted %v after %v, want admitted after the 50ms bound (and well under a second)", admitted, took)
	}
	waitForMetric(t, a.store, "moonbridge_replicas_redis_up", nil, 0)
	redis.Stop()
	for i := range 3 {
		if admitted, took := timedJoin(t, fmt.Sprintf("127.0.46.%d", 10+i), a.addr); !admitted || took > time.Second {
			t.Errorf("a join while Redis is gone: admitted %v after %v", admitted, took)
		}
	}
	exchange(t, playerA, "", 10)
	exchange(t, playerB, "", 10)
	testutil.WaitFor(t, "a to count its own players alone", func() bool { return onlineOn(t, a) == 5 })
	sendGarbage(t, "127.0.46.99", a.addr, 2)
	if n := a.log.count("Redis is away"); n != 1 {
		t.Errorf("%d lines say Redis is away, want 1", n)
	}

	redis.Start()
	for _, r := range nodes {
		waitForMetric(t, r.store, "moonbridge_replicas_redis_up", nil, 1)
	}
	testutil.WaitFor(t, "b to count a's players again", func() bool { return onlineOn(t, b) == 6 })
	testutil.WaitFor(t, "b to refuse the address a blocked while Redis was away", func() bool {
		return !statusAnswered(t, "127.0.46.99", b.addr)
	})
	if n := a.log.count("Redis answers again"); n != 1 {
		t.Errorf("%d lines say Redis is back, want 1", n)
	}
	exchange(t, playerA, "", 10)
}

// Issue 42: the attack mode measures the replicas together: a flood spread over two replicas,
// each under the threshold alone, starts it on both.
func TestReplicasShareTheAttackMode(t *testing.T) {
	_, nodes := startNetwork(t, 2, func(c *Config) {
		c.Routes = routeTo(testutil.ClosedPort(t))
		c.Defence.AttackMode = AttackMode{Enabled: true, ConnectionsPerSecond: 40, PingsPerSecond: 1000,
			LoginsPerSecond: 1000, Cooldown: time.Minute, Interval: 200 * time.Millisecond}
	})
	on := func() bool {
		for _, r := range nodes {
			if v, _ := metricValue(t, r.srv, attackSeries, nil); v != 1 {
				return false
			}
		}
		return true
	}
	// 25 new connections a second on each replica, each from a network of its own.
	for i := 0; i < 200 && !on(); i++ {
		for j, r := range nodes {
			dialFrom(t, fmt.Sprintf("127.%d.%d.1", 50+j, i), r.addr).Close()
		}
		time.Sleep(40 * time.Millisecond)
	}
	if !on() {
		t.Error("a flood of 50 connections a second over two replicas, 25 on each, did not start the attack mode (threshold 40) on both")
	}
}
