package relay

import (
	"bufio"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// fastCheck checks every 50 ms, so that a test sees a backend go down and come back quickly.
func fastCheck(mode pool.HealthMode) pool.HealthCheck {
	return pool.HealthCheck{Mode: mode, Interval: 50 * time.Millisecond, Timeout: 500 * time.Millisecond, Rise: 2, Fall: 2}
}

// dialReasons are the reasons of moonbridge_backend_dial_failures_total.
var dialReasons = []string{"timeout", "refused", "unreachable", "preamble", "other"}

// histogramCount is how many dials srv's dial-time histogram counted for route and backend.
func histogramCount(t *testing.T, srv *Server, route, backend string) uint64 {
	t.Helper()
	return findMetric(t, srv, "moonbridge_backend_dial_seconds", map[string]string{"route": route, "backend": backend}).
		GetHistogram().GetSampleCount()
}

func TestBackendSeriesPresentFromStart(t *testing.T) {
	backend := startBackend(t, false)
	srv, _ := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Name: "lobby", Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend.addr()}}, HealthCheck: fastCheck(pool.HealthTCP)},
			{Hosts: []string{"*"}, Paths: []string{"/unchecked"}, Backends: []pool.Backend{{Addr: backend.addr()}}},
		}
	}, Minecraft, WS) // a route with paths needs a WebSocket listener
	for _, route := range []string{"lobby", "*/unchecked"} {
		labels := map[string]string{"route": route, "backend": backend.addr()}
		for _, reason := range dialReasons {
			withReason := map[string]string{"route": route, "backend": backend.addr(), "reason": reason}
			if v, ok := metricValue(t, srv, "moonbridge_backend_dial_failures_total", withReason); !ok || v != 0 {
				t.Errorf("dial failures %v: %v (present %v), want 0 from start", withReason, v, ok)
			}
		}
		if _, ok := metricValue(t, srv, "moonbridge_backend_dial_seconds", labels); !ok {
			t.Errorf("no dial time histogram for %v", labels)
		}
	}
	if v, ok := metricValue(t, srv, "moonbridge_backend_up", map[string]string{"route": "lobby", "backend": backend.addr()}); !ok || v != 1 {
		t.Errorf("backend_up of a checked backend: %v (present %v), want 1 from start", v, ok)
	}
	if _, ok := metricValue(t, srv, "moonbridge_backend_up", map[string]string{"route": "*/unchecked", "backend": backend.addr()}); ok {
		t.Error("backend_up is reported for a route whose checks are off")
	}
}

// A backend that goes down is found down, and found up again when it comes back; each change
// is one log line.
func TestHealthCheckBackendGoesDownAndComesBack(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	var logs testutil.SyncBuffer
	srv, _ := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: addr}}, HealthCheck: fastCheck(pool.HealthTCP)}}
		c.Logger = zerolog.New(&logs)
	}, Minecraft)
	labels := map[string]string{"route": "*", "backend": addr}

	ln.Close() // connects are refused now
	waitForMetric(t, srv, "moonbridge_backend_up", labels, 0)
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	waitForMetric(t, srv, "moonbridge_backend_up", labels, 1)
	srv.Close()
	if down := strings.Count(logs.String(), "backend down"); down != 1 {
		t.Errorf("%d lines say the backend went down, want 1:\n%s", down, logs.String())
	}
	if up := strings.Count(logs.String(), "backend up"); up != 1 {
		t.Errorf("%d lines say the backend came back, want 1:\n%s", up, logs.String())
	}
}

// statusServer answers status pings as a Minecraft server does, after a PROXY header when
// wantProxy; it counts the pings it answered and remembers the PROXY commands it saw.
type statusServer struct {
	ln        net.Listener
	wantProxy bool
	mu        sync.Mutex
	answered  int
	commands  []clientaddr.Command
}

func startStatusServer(t *testing.T, wantProxy bool) *statusServer {
	t.Helper()
	s := &statusServer{wantProxy: wantProxy}
	s.ln = testutil.Serve(t, func(conn net.Conn) { defer conn.Close(); s.serve(conn) })
	return s
}

func (s *statusServer) serve(conn net.Conn) {
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	if s.wantProxy {
		h, err := clientaddr.ReadHeader(r, 0)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.commands = append(s.commands, h.Command)
		s.mu.Unlock()
	}
	hello, err := mc.ReadHello(r, 0)
	if err != nil || hello.Handshake.NextState != mc.NextStatus {
		return
	}
	answer := mc.Answer{Status: mc.Status{VersionName: "Paper 1.21", MOTD: "up"}}
	err = answer.Serve(r, hello, func(frame []byte) error { _, err := conn.Write(frame); return err })
	if err == nil || errors.Is(err, io.EOF) { // a health check closes after the response
		s.mu.Lock()
		s.answered++
		s.mu.Unlock()
	}
}

func (s *statusServer) seen() (answered int, commands []clientaddr.Command) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered, append([]clientaddr.Command(nil), s.commands...)
}

// silentBackend accepts connections and never answers, until the other side closes: a TCP
// check passes, a status check must not.
func silentBackend(t *testing.T) string {
	t.Helper()
	return testutil.Serve(t, func(conn net.Conn) {
		defer conn.Close()
		io.Copy(io.Discard, conn)
	}).Addr().String()
}

// A status check needs a real server-list answer: a backend that accepts and stays silent is
// down for it (and up for a TCP check), a Minecraft server is up, and a backend that wants
// PROXY headers gets a LOCAL one, which says "health check" rather than naming a player.
func TestStatusCheckNeedsAValidAnswer(t *testing.T) {
	silent := silentBackend(t)
	server := startStatusServer(t, false)
	proxied := startStatusServer(t, true)
	srv, _ := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Name: "status", Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: silent}, {Addr: server.ln.Addr().String()}},
				HealthCheck: fastCheck(pool.HealthStatus)},
			{Name: "proxied", Hosts: []string{"proxied.example"}, HealthCheck: fastCheck(pool.HealthStatus),
				Backends: []pool.Backend{{Addr: proxied.ln.Addr().String(), ProxyProtocol: 2}}},
			{Name: "tcp", Hosts: []string{"tcp.example"}, Backends: []pool.Backend{{Addr: silent}}, HealthCheck: fastCheck(pool.HealthTCP)},
		}
	}, Minecraft)
	waitForMetric(t, srv, "moonbridge_backend_up", map[string]string{"route": "status", "backend": silent}, 0)
	deadline := time.Now().Add(10 * time.Second)
	for {
		answered, _ := server.seen()
		proxiedAnswered, commands := proxied.seen()
		if answered >= 2 && proxiedAnswered >= 2 {
			for _, c := range commands {
				if c != clientaddr.Local {
					t.Errorf("a status check sent PROXY command %d, want LOCAL", c)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the status servers answered %d and %d checks, want 2 each", answered, proxiedAnswered)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, labels := range []map[string]string{
		{"route": "status", "backend": server.ln.Addr().String()},
		{"route": "proxied", "backend": proxied.ln.Addr().String()},
		{"route": "tcp", "backend": silent},
	} {
		if v, _ := metricValue(t, srv, "moonbridge_backend_up", labels); v != 1 {
			t.Errorf("backend_up%v = %v, want 1", labels, v)
		}
	}
}

// When every backend of a route is down by its checks, players are still sent to them in
// order rather than refused: here the echo backends fail a status check but relay fine.
func TestAllBackendsDownAreStillTried(t *testing.T) {
	first, second := startBackend(t, false), startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: first.addr()}, {Addr: second.addr()}},
			HealthCheck: fastCheck(pool.HealthStatus)}}
	}, Minecraft)
	waitForMetric(t, srv, "moonbridge_backend_up", map[string]string{"route": "*", "backend": first.addr()}, 0)
	waitForMetric(t, srv, "moonbridge_backend_up", map[string]string{"route": "*", "backend": second.addr()}, 0)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	exchange(t, conn, "all-down.example", 100)
	// The health checks keep sending status handshakes of their own: look for the player's.
	if !first.sawHost("all-down.example") {
		t.Errorf("the first backend never saw the player's handshake")
	}
}

// The checkers belong to the Server: Close stops them, a check in flight included, and waits
// for them, so none runs once Close has returned.
func TestCloseStopsHealthChecks(t *testing.T) {
	testutil.CheckGoroutines(t)
	probed := make(chan struct{}, 1)
	silent := testutil.Serve(t, func(conn net.Conn) {
		defer conn.Close()
		select {
		case probed <- struct{}{}:
		default:
		}
		io.Copy(io.Discard, conn) // never answers: the status check waits for its timeout
	}).Addr().String()
	srv, _ := startProxy(t, func(c *Config) {
		check := fastCheck(pool.HealthStatus)
		check.Timeout = time.Minute
		c.Routes = []Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: silent}}, HealthCheck: check}}
	}, Minecraft)
	<-probed
	srv.Close()
	if n := goroutinesIn("pool.(*Pool).watch"); n != 0 {
		t.Errorf("%d health checkers still run after Close returned", n)
	}
}

// goroutinesIn counts the goroutines with fn on their stack.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), fn+"(")
}

func TestRouteLabelsMustDiffer(t *testing.T) {
	backends := []pool.Backend{{Addr: "127.0.0.1:1"}}
	if _, err := NewRouter([]Route{{Hosts: []string{"*"}, Backends: backends}, {Hosts: []string{"*"}, Backends: backends}}); err == nil ||
		!strings.Contains(err.Error(), `label "*" is route 0's too`) {
		t.Errorf("two routes labelled *: %v", err)
	}
	if _, err := NewRouter([]Route{{Hosts: []string{"*"}, Backends: append(backends, backends...)}}); err == nil ||
		!strings.Contains(err.Error(), "listed twice") {
		t.Errorf("a backend listed twice: %v", err)
	}
	if _, err := NewRouter([]Route{{Hosts: []string{"*"}, Backends: backends, HealthCheck: pool.HealthCheck{Mode: "ping"}}}); err == nil ||
		!strings.Contains(err.Error(), `mode "ping"`) {
		t.Errorf("an unknown check mode: %v", err)
	}
}
