package relay

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// pacedPlayers are the players of a test under load: each sends a small packet every 100 to
// 250 ms and checks that its echo comes back byte-exact, until stop.
type pacedPlayers struct {
	sent, echoed atomic.Int64 // bytes
	packets      atomic.Int64
	mu           sync.Mutex
	errs         []error
	wg           sync.WaitGroup
	done         chan struct{}
}

func newPacedPlayers() *pacedPlayers { return &pacedPlayers{done: make(chan struct{})} }

// play runs one player on conn, whose echo echo reads, until stop.
func (p *pacedPlayers) play(name string, conn net.Conn, echo *bufio.Reader) {
	p.wg.Go(func() {
		for {
			select {
			case <-p.done:
				return
			case <-time.After(100*time.Millisecond + randomBelow(150*time.Millisecond)):
			}
			if err := p.exchangeOne(conn, echo); err != nil {
				p.mu.Lock()
				p.errs = append(p.errs, fmt.Errorf("player %s: %w", name, err))
				p.mu.Unlock()
				return
			}
		}
	})
}

// exchangeOne sends one packet of 8 to 64 random bytes and reads its echo.
func (p *pacedPlayers) exchangeOne(conn net.Conn, echo *bufio.Reader) error {
	packet := make([]byte, 8+randomBelow(57))
	rand.Read(packet)
	if _, err := conn.Write(packet); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	p.sent.Add(int64(len(packet)))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := make([]byte, len(packet))
	if _, err := io.ReadFull(echo, got); err != nil {
		return fmt.Errorf("reading the echo: %w", err)
	}
	if !bytes.Equal(got, packet) {
		return fmt.Errorf("the echo differs from the packet sent")
	}
	p.echoed.Add(int64(len(got)))
	p.packets.Add(1)
	return nil
}

// stop ends the players and returns what went wrong.
func (p *pacedPlayers) stop() []error {
	close(p.done)
	p.wg.Wait()
	return p.errs
}

// randomBelow is a random duration or count in [0, n).
func randomBelow[T ~int | ~int64](n T) T {
	v, _ := rand.Int(rand.Reader, big.NewInt(int64(n)))
	return T(v.Int64())
}

// outagePlayers is how many players TestReplicasSurviveARedisRestartUnderLoad runs in all, and
// how many of them join while Redis is away.
const outagePlayers, joinsDuringOutage = 300, 30

// joinPaced joins n players spread evenly over nodes, from addresses numbered from first on
// (40 to a /24, under the default per-network rates), and lets each play.
func joinPaced(t *testing.T, players *pacedPlayers, nodes []*replica, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		from := fmt.Sprintf("127.61.%d.%d", i/40, i%40+1)
		conn, echo, admitted := joinConn(t, from, nodes[i%len(nodes)].addr)
		if !admitted {
			t.Fatalf("player %d from %s was refused as the route being full", i, from)
		}
		players.play(from, conn, echo)
	}
}

// waitForNetworkPlayers waits until every replica's network count of the survival route is
// want.
func waitForNetworkPlayers(t *testing.T, nodes []*replica, want int) {
	t.Helper()
	for _, r := range nodes {
		waitForMetric(t, r.store, "moonbridge_replicas_network_players", map[string]string{"route": "survival"}, float64(want))
	}
}

// Issue 42, Redis stopped and started under 300 paced players over 3 replicas: no session is
// dropped and no byte lost; joins while Redis is away are admitted by each replica's own count;
// each replica says once that Redis is away and once that it is back, and counts the failures;
// once Redis is back (empty) the network count is the real 300 again within a few heartbeats,
// and an address blocked during the outage is refused by the others.
func TestReplicasSurviveARedisRestartUnderLoad(t *testing.T) {
	redis, nodes := startNetwork(t, 3, func(c *Config) {
		cappedRoute(t, 1000)(c)
		c.Defence.Block = Block{After: 2, Window: 10 * time.Second, For: time.Minute}
	})
	players := newPacedPlayers()
	before := outagePlayers - joinsDuringOutage
	joinPaced(t, players, nodes, 0, before)
	waitForNetworkPlayers(t, nodes, before)

	redis.Stop()
	outage := time.Now()
	for _, r := range nodes {
		waitForMetric(t, r.store, "moonbridge_replicas_redis_up", nil, 0)
	}
	joinPaced(t, players, nodes, before, joinsDuringOutage)
	waitForNetworkPlayers(t, nodes, outagePlayers/3) // each its own players alone
	const blocked = "127.0.62.99"
	sendGarbage(t, blocked, nodes[0].addr, 2)
	time.Sleep(3*time.Second - time.Since(outage))

	redis.Start()
	back := time.Now()
	waitForNetworkPlayers(t, nodes, outagePlayers)
	converged := time.Since(back)
	for _, r := range nodes[1:] {
		testutil.WaitFor(t, "the others to refuse the address blocked while Redis was away", func() bool {
			return !statusAnswered(t, blocked, r.addr)
		})
	}
	time.Sleep(time.Second) // the players go on with Redis back
	errs := players.stop()
	t.Logf("Redis away %v; the counts converged %v after it was back; %d packets, %d bytes echoed",
		back.Sub(outage).Round(time.Millisecond), converged.Round(time.Millisecond), players.packets.Load(), players.echoed.Load())

	for _, err := range errs {
		t.Error(err)
	}
	if players.sent.Load() != players.echoed.Load() {
		t.Errorf("%d bytes sent, %d echoed", players.sent.Load(), players.echoed.Load())
	}
	// go-redis dials again up to a second after Redis is back (replicas' health.go), then the
	// next heartbeats carry the counts.
	if bound := time.Second + 15*testSettings(redis, "").Heartbeat; converged > bound {
		t.Errorf("the network count took %v to converge after Redis was back, want at most %v: go-redis' redial and a few heartbeats", converged, bound)
	}
	for i, r := range nodes {
		if here, _ := r.srv.RoutePlayers(); here["survival"] != outagePlayers/3 {
			t.Errorf("replica %d counts %d players, want %d: a session was dropped", i, here["survival"], outagePlayers/3)
		}
		if n := r.log.count("Redis is away"); n != 1 {
			t.Errorf("replica %d: %d lines say Redis is away, want 1", i, n)
		}
		if n := r.log.count("Redis answers again"); n != 1 {
			t.Errorf("replica %d: %d lines say Redis is back, want 1", i, n)
		}
		if v, _ := metricValue(t, r.store, "moonbridge_replicas_redis_errors_total", nil); v == 0 {
			t.Errorf("replica %d counted no failed call to Redis during the outage", i)
		}
	}
}
