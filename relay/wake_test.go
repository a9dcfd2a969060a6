package relay

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/mctest"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// The wake tests' server is this test binary run again with these variables: an echo backend
// on the address, which writes its pid to the file (wake_test.go's start and stop commands).
const (
	wakeHelperAddr = "MOONBRIDGE_WAKE_HELPER_ADDR"
	wakeHelperPID  = "MOONBRIDGE_WAKE_HELPER_PID"
)

// runWakeHelper serves as a Minecraft echo backend until it is killed.
func runWakeHelper(addr string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.WriteFile(os.Getenv(wakeHelperPID), []byte(fmt.Sprint(os.Getpid())), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mctest.ServeEcho(ln)
	return 1
}

// wakeCommands are the start command of a helper server on addr and its stop command; the
// test kills a helper still running at its end.
func wakeCommands(t *testing.T, addr string) (start, stop []string) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	t.Cleanup(func() {
		if pid, err := os.ReadFile(pidFile); err == nil {
			var n int
			fmt.Sscan(string(pid), &n)
			if p, err := os.FindProcess(n); err == nil {
				p.Kill()
			}
		}
	})
	start = []string{"sh", "-c", `env "$1" "$2" "$3" -test.run='^$' >/dev/null 2>&1 &`, "start",
		wakeHelperAddr + "=" + addr, wakeHelperPID + "=" + pidFile, os.Args[0]}
	stop = []string{"sh", "-c", `kill "$(cat "$1")" && rm "$1"`, "stop", pidFile}
	return start, stop
}

// A login for a sleeping server starts it with the command, is held until it answers and is
// relayed; once the server has had no player for stop_after_idle, the stop command stops it.
func TestWakeHoldsLoginAndStopsWhenIdle(t *testing.T) {
	addr, release := reserveAddr(t)
	start, stop := wakeCommands(t, addr)
	srv, proxy := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Name: "sleepy", Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: addr}}, Wake: &pool.Wake{
			Command: start, ReadyTimeout: 60 * time.Second, StopAfterIdle: 300 * time.Millisecond, StopCommand: stop, Hold: true,
		}}}
	}, Minecraft)
	release()
	conn := dialClient(t, Minecraft, proxy)
	defer conn.Close()
	exchange(t, conn, "h", 1000) // held until the woken server echoes
	waitForMetric(t, srv, "moonbridge_wakes_total", map[string]string{"route": "sleepy", "result": "ready"}, 1)
	conn.Close()
	waitForMetric(t, srv, "moonbridge_wakes_total", map[string]string{"route": "sleepy", "result": "stopped"}, 1)
	testutil.WaitFor(t, "the stopped server to refuse", func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return errors.Is(err, syscall.ECONNREFUSED)
	})
	if n, _ := metricValue(t, srv, "moonbridge_wakes_total", map[string]string{"route": "sleepy", "result": "started"}); n != 1 {
		t.Errorf("started %v times, want once", n)
	}
}

// Without hold a login is told the server is starting, and pings see the starting MOTD while it
// starts; a start command that brings nothing up keeps it starting.
func TestWakeWithoutHoldSaysStarting(t *testing.T) {
	addr, release := reserveAddr(t)
	srv, proxy := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Name: "sleepy", Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: addr}}, Wake: &pool.Wake{
			Command: []string{"true"}, ReadyTimeout: time.Minute, StartingMOTD: "warming up", StartingMessage: "starting, join again in a minute",
		}}}
		c.Limits.ConnectionRate, c.Limits.ConnectionBurst = 1000, 1000
	}, Minecraft)
	release()
	status := pingStatus(t, Minecraft, proxy, "h")
	if motd := jsonText(t, status["description"]); strings.Contains(motd, "warming up") {
		t.Errorf("a ping before any login saw the starting MOTD: %s", motd)
	}
	for range 2 {
		conn := dialClient(t, Minecraft, proxy)
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		conn.Write(append(handshakeFrame("h", mc.NextLogin), loginStart()...))
		body, err := readFrameFrom(bufio.NewReader(conn))
		conn.Close()
		if err != nil || !strings.Contains(string(body), "starting, join again in a minute") {
			t.Fatalf("login got %q, %v; want the starting message", body, err)
		}
	}
	status = pingStatus(t, Minecraft, proxy, "h")
	if motd := jsonText(t, status["description"]); !strings.Contains(motd, "warming up") {
		t.Errorf("a ping while the server starts got %s, want the starting MOTD", motd)
	}
	// Two logins, one start.
	waitForMetric(t, srv, "moonbridge_wakes_total", map[string]string{"route": "sleepy", "result": "started"}, 1)
}

// With a webhook instead of a command, the start is a POST naming the action and the route.
func TestWakeWebhook(t *testing.T) {
	actions := make(chan map[string]string, 4)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		json.NewDecoder(r.Body).Decode(&body)
		actions <- body
	}))
	defer hook.Close()
	sleeping, release := reserveAddr(t)
	_, proxy := startProxy(t, func(c *Config) {
		c.Routes = []Route{{Name: "sleepy", Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: sleeping}},
			Wake: &pool.Wake{Webhook: hook.URL, ReadyTimeout: time.Minute}}}
	}, Minecraft)
	release()
	conn := dialClient(t, Minecraft, proxy)
	defer conn.Close()
	conn.Write(append(handshakeFrame("h", mc.NextLogin), loginStart()...))
	select {
	case got := <-actions:
		if got["action"] != "start" || got["route"] != "sleepy" {
			t.Errorf("webhook got %v, want start for sleepy", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wake webhook got nothing")
	}
}
