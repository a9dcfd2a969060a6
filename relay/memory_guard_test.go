package relay

import (
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// partialClientHello is the start of a TLS ClientHello: a handshake record header announcing
// 512 bytes, then the first bytes of the message. A TLS server waits for the rest.
var partialClientHello = []byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03}

// The guard test's process: memory.limit 64 MiB, 40% of it at rest, and each stalled handshake
// the proxy still holds costs stallCost, about what the finding measured (14.5-19.9 kB).
const (
	guardLimit = 64 << 20
	stallCost  = 20 << 10
	stalls     = 2000
	stallNets  = 20 // /24 networks the stalls come from, stalls/stallNets from each
)

// stallsOpen counts the stalled connections the proxy has not closed yet.
type stallsOpen struct{ n atomic.Int64 }

// stall opens a connection from "from", sends part of a ClientHello and counts it open until
// the proxy closes it.
func (s *stallsOpen) stall(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	s.n.Add(1)
	conn := dialFrom(t, from, addr)
	if _, err := conn.Write(partialClientHello); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer s.n.Add(-1)
		conn.SetReadDeadline(time.Now().Add(time.Minute))
		buf := make([]byte, 64)
		for {
			if _, err := conn.Read(buf); err != nil {
				return
			}
		}
	}()
	return conn
}

// guardLimits let the test's stalls through every connection limit, so that only the memory
// guard stands between them and the memory limit.
func guardLimits() Limits {
	l := DefaultLimits()
	l.MaxConnections, l.MaxConnectionsPerIP = 3*stalls, stalls
	l.ConnectionRate, l.ConnectionBurst = 1e6, stalls
	l.MaxConnectionsPerNetwork = stalls
	l.ConnectionRatePerNetwork, l.ConnectionBurstPerNetwork = 1e6, stalls
	l.HandshakeTimeout = time.Minute // the stalls outlive the test unless the guard sheds them
	return l
}

func TestMemoryGuardShedsStalledHandshakesBeforeRefusingLogins(t *testing.T) {
	backend := startBackend(t, false)
	var open stallsOpen
	usage := func() (uint64, error) { return guardLimit/10*4 + uint64(open.n.Load())*stallCost, nil }
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Limits = guardLimits()
		c.Memory = Memory{Limit: guardLimit, Usage: usage}
	}, WSS)

	// A player's handshake from a network of its own, older than every stall: shedding the
	// networks with the most handshakes first leaves it alone.
	lone := open.stall(t, "127.0.200.1", addr)
	for i := range stalls {
		open.stall(t, fmt.Sprintf("127.0.%d.%d", 100+i%stallNets, 1+i%7), addr)
	}
	deadline := time.Now().Add(20 * time.Second)
	for open.n.Load() > stalls/2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := open.n.Load(); n > stalls/2 {
		t.Fatalf("%d of %d stalled handshakes still open after 20 s under a %d MiB limit, want at most half: the guard sheds them",
			n, stalls+1, guardLimit>>20)
	}
	srv.mem.sample()
	if srv.mem.refusing.Load() {
		used, _ := usage()
		t.Fatalf("logins refused at %d MiB of %d with %d stalls open: stalled handshakes must go first", used>>20, guardLimit>>20, open.n.Load())
	}
	if closedWithin(lone, 50*time.Millisecond) {
		t.Error("the lone handshake from its own network was shed while networks holding 100 each were not")
	}
	player := dialClient(t, WSS, addr)
	defer player.Close()
	exchange(t, player, "h", 1000)
	if v, _ := metricValue(t, srv, "moonbridge_connections_refused_total", map[string]string{"reason": "memory_shed"}); v < stalls/2 {
		t.Errorf("refused{reason=memory_shed} = %v, want the %d or more shed", v, stalls/2)
	}
}
