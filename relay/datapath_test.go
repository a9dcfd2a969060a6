package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc"
)

// goroutinesPerSession is what each data path keeps per established raw Minecraft, ws or wss
// (BoringSSL) session.
var goroutinesPerSession = map[DataPath]int{DataPathLoop: 0, DataPathGoroutines: 2}

// TestIdleSessionGoroutines: on the event loops an established session keeps no goroutine of
// its own (the one that set it up returns); on the goroutine path it keeps its two pumps.
// Goroutines of other tests winding down may come and go meanwhile: a few either way are
// allowed, far fewer than one per session.
func TestIdleSessionGoroutines(t *testing.T) { eachLoopTransport(t, testIdleSessionGoroutines) }

// eachLoopTransport runs test once per player transport that can move to the event loops: raw
// Minecraft, ws, and wss over BoringSSL (a subtest named wss_boringssl, which a pure-Go build
// skips), with the TLS provider for the proxy.
func eachLoopTransport(t *testing.T, test func(t *testing.T, protocol Protocol, provider string)) {
	for _, c := range []struct {
		name     string
		protocol Protocol
		provider string
	}{{"minecraft", Minecraft, "go"}, {"ws", WS, "go"}, {"wss_boringssl", WSS, "boringssl"}} {
		t.Run(c.name, func(t *testing.T) { test(t, c.protocol, c.provider) })
	}
}

func testIdleSessionGoroutines(t *testing.T, protocol Protocol, provider string) {
	backend := startBackend(t, false) // one goroutine per connection of its own
	const sessions, slack = 20, 5
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Limits.ConnectionBurst = sessions // all from one address, at once
		c.TLS = tlsServer(t, provider)
	}, protocol)
	before := runtime.NumGoroutine()
	for range sessions {
		conn := dialClient(t, protocol, addr)
		defer conn.Close()
		exchange(t, conn, "h", 100)
	}
	want := sessions * goroutinesPerSession[testDataPath]
	relays := func() int { return runtime.NumGoroutine() - before - sessions }
	testutil.Within(testutil.WaitBound, func() bool { return near(relays(), want, slack) })
	if got := relays(); !near(got, want, slack) {
		t.Fatalf("%d idle sessions: the relay has %d goroutines more, want %d (%d per session)",
			sessions, got, want, goroutinesPerSession[testDataPath])
	}
	if srv.engine != nil && srv.engine.Stats().Sessions != sessions {
		t.Errorf("the loops run %d sessions, want all %d", srv.engine.Stats().Sessions, sessions)
	}
}

func near(got, want, slack int) bool { return got >= want-slack && got <= want+slack }

// startLoggedProxy runs a Minecraft proxy in front of backend and captures its log.
func startLoggedProxy(t *testing.T, backend *testBackend) (*Server, string, *logLines) {
	t.Helper()
	var lines *logLines
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		lines = captureLog(t, c)
	}, Minecraft)
	return srv, addr, lines
}

// TestLoginStartAfterTheDialNamesThePlayer: a Login Start that comes after the backend was
// dialled is read from the relayed stream, on either data path, for the end line.
func TestLoginStartAfterTheDialNamesThePlayer(t *testing.T) {
	backend := startBackend(t, false)
	_, addr, lines := startLoggedProxy(t, backend)
	player := dialClient(t, Minecraft, addr)
	player.Write(handshakeFrame("late.example", mc.NextLogin))
	testutil.WaitFor(t, "the backend to see late.example", func() bool { return backend.sawHost("late.example") })
	player.Write(mc.AppendFrame(nil, 0x00, append([]byte("\x04Alex"), make([]byte, 16)...)))
	player.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := readFrameFrom(bufio.NewReader(player)); err != nil { // the echoed Login Start
		t.Fatal(err)
	}
	player.Close()
	testutil.WaitFor(t, "a session end line", func() bool { return lines.count("session ended") == 1 })
	if lines.count(`"player":"Alex"`, `"host":"late.example"`, "session ended") != 1 {
		t.Errorf("the end line does not name the player:\n%s", lines.String())
	}
}

// TestShutdownEndsRelayingSessions: Close ends a session that is relaying, with the reason
// shutdown on its line and in its outcome, and the player's connection is closed.
func TestShutdownEndsRelayingSessions(t *testing.T) {
	srv, addr, lines := startLoggedProxy(t, startBackend(t, false))
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	exchange(t, conn, "h", 1000)
	srv.Close()
	if err := firstRead(conn); err != io.EOF {
		t.Errorf("the player's read after shutdown: %v, want EOF", err)
	}
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "shutdown"}, 1)
	if lines.count(`"close_reason":"proxy shutting down"`, "bytes_up", "session ended") != 1 {
		t.Errorf("no end line with the shutdown reason:\n%s", lines.String())
	}
}

// TestDataPathLine: one startup line says which data path serves which protocol.
func TestDataPathLine(t *testing.T) {
	var lines *logLines
	startProxy(t, func(c *Config) { lines = captureLog(t, c); c.Loops = 3; c.Placement = PlacementSpread }, Minecraft)
	want := map[DataPath]string{
		DataPathLoop:       `"message":"Data path: event loops (3, spread) for minecraft, ws; goroutines for wss (TLS via crypto/tls)"`,
		DataPathGoroutines: `"message":"Data path: goroutines (two per session)"`,
	}[testDataPath]
	if lines.count(want) != 1 {
		t.Errorf("no line %s:\n%s", want, lines.String())
	}
}

// TestDefaultLoopsAreOnePerCPUPacked: relay.loops and relay.placement at their defaults run one
// loop per CPU Go uses, packed.
func TestDefaultLoopsAreOnePerCPUPacked(t *testing.T) {
	var lines *logLines
	startProxy(t, func(c *Config) {
		lines = captureLog(t, c)
		d := DefaultDataPath()
		d.DataPath = c.DataPath
		c.DataPathConfig = d
	}, Minecraft)
	want := map[DataPath]string{
		DataPathLoop:       fmt.Sprintf(`"message":"Data path: event loops (%d, pack) for minecraft`, runtime.GOMAXPROCS(0)),
		DataPathGoroutines: `"message":"Data path: goroutines (two per session)"`,
	}[testDataPath]
	if lines.count(want) != 1 {
		t.Errorf("no line %s:\n%s", want, lines.String())
	}
}

// TestLoopSessionsMetric: moonbridge_loop_sessions counts each loop's sessions (the first
// loop gets the first session); without loops there is no such series.
func TestLoopSessionsMetric(t *testing.T) {
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(startBackend(t, false).addr()); c.Loops = 2 }, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	exchange(t, conn, "h", 100)
	first, second := map[string]string{"loop": "0"}, map[string]string{"loop": "1"}
	if testDataPath != DataPathLoop {
		if _, ok := metricValue(t, srv, "moonbridge_loop_sessions", first); ok {
			t.Error("moonbridge_loop_sessions without event loops")
		}
		return
	}
	waitForMetric(t, srv, "moonbridge_loop_sessions", first, 1)
	if n, ok := metricValue(t, srv, "moonbridge_loop_sessions", second); !ok || n != 0 {
		t.Errorf("the second loop: %v sessions (series %v), want 0", n, ok)
	}
	if _, ok := metricValue(t, srv, "moonbridge_loop_busy_ratio", second); !ok {
		t.Error("no moonbridge_loop_busy_ratio for the second loop")
	}
	if n, ok := metricValue(t, srv, "moonbridge_loop_moves_total", nil); !ok || n != 0 {
		t.Errorf("moonbridge_loop_moves_total %v (series %v), want 0", n, ok)
	}
}

func TestDataPathSettingsAreChecked(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{DataPathConfig: DataPathConfig{DataPath: "epoll"}}, `data path: "epoll" is not one of auto, loop, goroutines`},
		{Config{DataPathConfig: DataPathConfig{Loops: -1}}, "loops: must be 0 (one per CPU Go uses) or positive"},
		{Config{DataPathConfig: DataPathConfig{Placement: "even"}}, `placement: "even" is not one of pack, spread`},
	} {
		if err := checkDataPath(c.cfg); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	err := checkDataPath(Config{DataPathConfig: DataPathConfig{DataPath: DataPathLoop}})
	if loop.Supported != (err == nil) || (err != nil && !errors.Is(err, loop.ErrUnsupported)) {
		t.Errorf("data path loop where loops are supported: %v: %v", loop.Supported, err)
	}
}

// TestEndReasonReadsAsThePumps: a loop's close reasons become the relay's, so that the end line
// and the outcome label are the same on both data paths.
func TestEndReasonReadsAsThePumps(t *testing.T) {
	reset := &pipe.SideError{Side: loop.Backend.String(), Op: "read", Err: errors.New("connection reset by peer")}
	for _, c := range []struct {
		loop    error
		text    string
		outcome string
	}{
		{nil, "", "closed"},
		{loop.ErrShutdown, errShutdown.Error(), "shutdown"},
		{errShutdown, errShutdown.Error(), "shutdown"},
		{reset, "backend: read: connection reset by peer", "backend_error"},
		{&pipe.SideError{Side: loop.Client.String(), Op: "write", Err: errors.New("broken pipe")}, "client: write: broken pipe", "client_error"},
	} {
		got := endReason(c.loop)
		if text := errText(got); text != c.text || outcome(got) != c.outcome {
			t.Errorf("endReason(%v) = %q (%s), want %q (%s)", c.loop, text, outcome(got), c.text, c.outcome)
		}
	}
	if !errors.Is(endReason(reset), reset.Err) {
		t.Error("the relay's reason does not wrap the loop's error")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestWebSocketEndsWhenTheBackendCloses: a WebSocket has no half-close; when the backend ends
// its stream the player gets the close frame and the session ends, on either data path, though
// the player neither reads nor answers the close.
func TestWebSocketEndsWhenTheBackendCloses(t *testing.T) {
	for _, provider := range []string{"go", "boringssl"} {
		t.Run("ws_and_wss_"+provider, func(t *testing.T) {
			closer := testutil.Serve(t, func(c net.Conn) {
				mc.ReadHello(bufio.NewReader(c), 0)
				c.Close() // a FIN: the server has nothing more to say
			}).Addr().String()
			var lines *logLines
			_, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(closer)
				c.TLS = tlsServer(t, provider)
				lines = captureLog(t, c)
			}, WS, WSS)
			for _, transport := range []Protocol{WS, WSS} {
				conn := dialClient(t, transport, addr)
				defer conn.Close()
				conn.Write(handshakeFrame("h", mc.NextLogin))
			}
			testutil.WaitFor(t, "2 end lines of backend closes", func() bool { return lines.count("session ended", "backend closed the connection") == 2 })
		})
	}
}
