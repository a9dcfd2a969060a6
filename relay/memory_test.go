package relay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/bufpool"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

const testLimit = 1000 << 20

// startMemoryLimitedProxy runs a Minecraft and ws proxy with a 1000 MiB limit whose memory
// reading is used: the test sets it and calls sample, so it decides when memory is near.
func startMemoryLimitedProxy(t *testing.T, used *atomic.Uint64) (*Server, string) {
	t.Helper()
	backend := startBackend(t, false)
	return startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Memory = Memory{Limit: testLimit, FullMessage: "Full up, sorry", Usage: func() (uint64, error) { return used.Load(), nil }}
	}, Minecraft, WS)
}

func TestMemoryLimitRefusesNewLoginsAndKeepsSessions(t *testing.T) {
	testutil.CheckGoroutines(t)
	goLimitBefore := debug.SetMemoryLimit(-1)
	var used atomic.Uint64
	used.Store(testLimit / 2)
	srv, addr := startMemoryLimitedProxy(t, &used)
	refusedMemory := map[string]string{"reason": refusedMemory}
	if v, ok := metricValue(t, srv, "moonbridge_connections_refused_total", refusedMemory); !ok || v != 0 {
		t.Fatalf("refused{reason=memory} before any refusal: %v (present %v), want 0", v, ok)
	}
	var running []net.Conn
	for _, transport := range []Protocol{Minecraft, WS, Minecraft} {
		conn := dialClient(t, transport, addr)
		defer conn.Close()
		exchange(t, conn, "h", 1000)
		running = append(running, conn)
	}

	used.Store(testLimit / 100 * 91)
	srv.mem.sample()
	waitForMetric(t, srv, "moonbridge_memory_refusing", nil, 1)
	for _, transport := range []Protocol{Minecraft, WS} {
		if body := refusedLogin(t, transport, addr); !bytes.Equal(body, mc.AppendLoginDisconnect(nil, "Full up, sorry")[1:]) {
			t.Errorf("%s login near the limit got %q, want the full message as a login disconnect", transport, body)
		}
	}
	// The refused sessions have ended (and left the count of players online).
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "server_full"}, 1)
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "ws", "outcome": "server_full"}, 1)
	status := serverList(t, addr)
	if status.Description.Text != "§cFull up, sorry" || status.Players.Max != len(running) || status.Players.Online != len(running) {
		t.Errorf("server list near the limit: %+v, want the full message and %d of %d players", status, len(running), len(running))
	}
	waitForMetric(t, srv, "moonbridge_connections_refused_total", refusedMemory, 2)
	for _, conn := range running {
		exchange(t, conn, "", 64<<10) // none of the running sessions dropped
	}

	used.Store(testLimit / 100 * 85) // between the marks: still refusing
	srv.mem.sample()
	refusedLogin(t, Minecraft, addr)
	used.Store(testLimit / 100 * 79)
	srv.mem.sample()
	waitForMetric(t, srv, "moonbridge_memory_refusing", nil, 0)
	again := dialClient(t, Minecraft, addr)
	defer again.Close()
	exchange(t, again, "h", 1000)
	waitForMetric(t, srv, "moonbridge_connections_refused_total", refusedMemory, 3)

	if got := debug.SetMemoryLimit(-1); got != testLimit/100*goLimitAt {
		t.Errorf("Go's memory limit under a %d MiB limit: %d MiB, want %d%%", testLimit>>20, got>>20, goLimitAt)
	}
	again.Close()
	srv.Close()
	if got := debug.SetMemoryLimit(-1); got != goLimitBefore {
		t.Errorf("Close left Go's memory limit at %d, want the previous %d back", got, goLimitBefore)
	}
}

// refusedLogin starts a login and returns the packet the proxy answers with before it closes.
func refusedLogin(t *testing.T, transport Protocol, addr string) []byte {
	t.Helper()
	conn := dialClient(t, transport, addr)
	defer conn.Close()
	conn.Write(handshakeFrame("h", mc.NextLogin))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	body, err := readFrameFrom(r)
	if err != nil {
		t.Fatalf("%s: reading the login answer: %v", transport, err)
	}
	if _, err := r.ReadByte(); err == nil {
		t.Errorf("%s: the refused login stayed open", transport)
	}
	return body
}

// listStatus is the part of the status JSON the test reads.
type listStatus struct {
	Players struct {
		Max    int `json:"max"`
		Online int `json:"online"`
	} `json:"players"`
	Description struct {
		Text string `json:"text"`
	} `json:"description"`
}

// serverList asks for the server list entry over Minecraft TCP.
func serverList(t *testing.T, addr string) listStatus {
	t.Helper()
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	conn.Write(append(handshakeFrame("h", mc.NextStatus), 0x01, 0x00))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	body, err := readFrameFrom(bufio.NewReader(conn))
	if err != nil || len(body) < 3 {
		t.Fatalf("status response: %q, %v", body, err)
	}
	start := bytes.IndexByte(body, '{')
	var status listStatus
	if start < 0 || json.Unmarshal(body[start:], &status) != nil {
		t.Fatalf("status response is not JSON: %q", body)
	}
	return status
}

func TestMemoryWatchWithoutLimitOrLowProfileStartsNothing(t *testing.T) {
	w := newMemoryWatch(Memory{Profile: bufpool.Throughput}, testLogger(t))
	if w.needed() {
		t.Error("no limit and the throughput profile: the watch wants a goroutine")
	}
	if !newMemoryWatch(Memory{Profile: bufpool.Low}, testLogger(t)).needed() {
		t.Error("the low profile runs no trimmer")
	}
	if !newMemoryWatch(Memory{Limit: 1}, testLogger(t)).needed() {
		t.Error("a limit runs no sampler")
	}
}

func TestMemoryWatchKeepsStateWhenTheReadingFails(t *testing.T) {
	fail := true
	w := newMemoryWatch(Memory{Limit: 100, Usage: func() (uint64, error) {
		if fail {
			return 0, os.ErrNotExist
		}
		return 95, nil
	}}, testLogger(t))
	w.sample()
	if w.refusing.Load() {
		t.Fatal("a failed reading started refusing")
	}
	fail = false
	w.sample()
	if !w.refusing.Load() {
		t.Fatal("95 of 100 did not start refusing")
	}
}

// After a flood, RSS keeps what the load left behind (pooled buffers, heap pages not yet
// returned): a watch gives memory back before it starts refusing, and a refusing one gives it
// back and samples again, so refusing ends once the memory was the load's.
func TestRefusingEndsOnceMemoryGivenBackIsUnderTheMark(t *testing.T) {
	var used atomic.Uint64
	used.Store(95)
	w := newMemoryWatch(Memory{Limit: 100, Usage: func() (uint64, error) { return used.Load(), nil }}, testLogger(t))
	reclaims := 0
	w.reclaim = func() { reclaims++ } // the load is still on: nothing to give back
	w.sessions = func() int { return 1 }
	w.sample()
	if !w.refusing.Load() || reclaims != 1 {
		t.Fatalf("95 of 100: refusing %v after %d reclaims, want refusing after memory was given back once", w.refusing.Load(), reclaims)
	}
	w.reclaim = func() { used.Store(60) } // what the load's leftovers give back once it is over
	w.reclaimWhileRefusing(time.Now().Add(reclaimEvery))
	if w.refusing.Load() {
		t.Error("still refusing after the memory given back fell to 60 of 100")
	}
}

// Memory that stays above the accept mark with no session running is the process at rest: the
// watch stops refusing (it would never stop otherwise), but not while a session runs.
func TestRefusingEndsWhenNoSessionRuns(t *testing.T) {
	w := newMemoryWatch(Memory{Limit: 100, Usage: func() (uint64, error) { return 85, nil }}, testLogger(t))
	reclaims, sessions := 0, 1
	w.reclaim = func() { reclaims++ }
	w.sessions = func() int { return sessions }
	w.refusing.Store(true)
	start := time.Unix(1000, 0)
	w.reclaimWhileRefusing(start)
	if !w.refusing.Load() || reclaims != 1 {
		t.Fatalf("with a session running: refusing %v after %d reclaims, want true after 1", w.refusing.Load(), reclaims)
	}
	sessions = 0
	w.reclaimWhileRefusing(start.Add(time.Second))
	if reclaims != 1 {
		t.Errorf("reclaimed again after 1s; at most every %s", reclaimEvery)
	}
	w.reclaimWhileRefusing(start.Add(reclaimEvery))
	if w.refusing.Load() {
		t.Error("still refusing with no session running after memory was given back")
	}
}

func TestTrimmerTrimsAfterABurstAndOncePerQuietPeriod(t *testing.T) {
	start := time.Unix(1000, 0)
	tr := newTrimmer(start)
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	steps := []struct {
		at     float64
		counts bufpool.Stats
		want   string
	}{
		{1, bufpool.Stats{Taken: 10}, ""},                          // busy, nothing dropped
		{2, bufpool.Stats{Taken: 200, Dropped: 40}, ""},            // a burst under way
		{3, bufpool.Stats{Taken: 200, Dropped: 40}, "burst"},       // it is over
		{4, bufpool.Stats{Taken: 400, Dropped: 80}, ""},            // another one
		{5, bufpool.Stats{Taken: 400, Dropped: 80}, ""},            // over, but within trimGap
		{8.5, bufpool.Stats{Taken: 400, Dropped: 80}, "burst"},     // after the gap
		{9, bufpool.Stats{Taken: 401, Dropped: 80}, ""},            // few drops: no burst
		{18.9, bufpool.Stats{Taken: 401, Dropped: 80}, ""},         // quiet for 9.9 s
		{19, bufpool.Stats{Taken: 401, Dropped: 80}, "idle"},       // quiet for 10 s
		{40, bufpool.Stats{Taken: 401, Dropped: 80}, ""},           // once per quiet period
		{41, bufpool.Stats{Taken: 402, Dropped: 90}, ""},           // activity again
		{51, bufpool.Stats{Taken: 402, Dropped: 90}, "idle"},       // the next quiet period
		{60, bufpool.Stats{Taken: 402 + 64, Dropped: 90 + 31}, ""}, // 31 dropped: under trimBurst
	}
	for _, s := range steps {
		if got := tr.due(at(s.at), s.counts); got != s.want {
			t.Errorf("at %.1f s with %+v: due %q, want %q", s.at, s.counts, got, s.want)
		}
	}
}

func TestLowProfileServerTrimsThePools(t *testing.T) {
	testutil.CheckGoroutines(t)
	backend := startBackend(t, false)
	// wss over crypto/tls: it runs on goroutines on both data paths, so the relay's and the TLS
	// layer's pooled buffers carry it (the event loops read into a buffer of their own).
	bufpool.SetProfile(bufpool.Low) // the process's to set, as cmd/moonbridge does for this config
	t.Cleanup(func() { bufpool.SetProfile(bufpool.Throughput) })
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Memory.Profile = bufpool.Low
	}, WSS)
	conn := dialClient(t, WSS, addr)
	exchange(t, conn, "h", 256<<10)
	conn.Close()
	srv.Close()
	if bufpool.Totals().Kept == 0 {
		t.Fatal("the low profile kept no buffer after a session: nothing for the trim to give back")
	}
	tr := srv.mem.trim // quiet since trimQuiet, not trimmed since
	tr.seen, tr.quietSince, tr.lastTrim = bufpool.Totals(), time.Now().Add(-trimQuiet), time.Time{}
	srv.mem.trimIfDue(time.Now())
	if kept := bufpool.Totals().Kept; kept != 0 {
		t.Errorf("after an idle trim the pools keep %d buffers, want 0", kept)
	}
}

func testLogger(t *testing.T) zerolog.Logger { return zerolog.New(zerolog.NewTestWriter(t)) }

func TestResidentSetReadsStatm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "statm")
	os.WriteFile(path, []byte("52873 1234 567 100 0 4000 0\n"), 0o600)
	got, err := residentSet(path)
	if want := uint64(1234 * os.Getpagesize()); err != nil || got != want {
		t.Errorf("residentSet = %d, %v; want %d", got, err, want)
	}
	os.WriteFile(path, []byte("52873\n"), 0o600)
	if _, err := residentSet(path); err == nil || !strings.Contains(err.Error(), "resident") {
		t.Errorf("a statm without the resident field: %v", err)
	}
	if used, err := goMapped(); err != nil || used == 0 {
		t.Errorf("goMapped = %d, %v", used, err)
	}
}
