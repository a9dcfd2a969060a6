package relay

import (
	"bufio"
	"encoding/json"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// liveStatusServer answers server-list pings with a fixed status JSON and counts them.
type liveStatusServer struct {
	ln       net.Listener
	body     string
	mu       sync.Mutex
	answered int
}

func startLiveStatusServer(t *testing.T, body string) *liveStatusServer {
	t.Helper()
	s := &liveStatusServer{body: body}
	s.ln = testutil.Serve(t, func(conn net.Conn) {
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(conn)
		hello, err := mc.ReadHello(r, 0)
		if err != nil || hello.Handshake.NextState != mc.NextStatus {
			return
		}
		s.mu.Lock()
		s.answered++
		s.mu.Unlock()
		mc.ServeStatusJSON(r, []byte(s.body), func(frame []byte) error { _, err := conn.Write(frame); return err })
	})
	return s
}

func (s *liveStatusServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered
}

const paperStatus = `{"version":{"name":"Paper 1.21","protocol":767},"players":{"max":20,"online":3},` +
	`"description":{"text":"up and running"},"favicon":"data:image/png;base64,AAAA"}`

// pingStatus runs one whole server-list exchange for host over transport: the status JSON, and
// a check that the ping got its pong.
func pingStatus(t *testing.T, transport Protocol, addr, host string) map[string]any {
	t.Helper()
	conn := dialClient(t, transport, addr)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write(mc.AppendStatusRequest(handshakeFrame(host, mc.NextStatus)))
	r := bufio.NewReader(conn)
	body, err := readFrameFrom(r)
	if err != nil {
		t.Fatalf("status ping for %s: %v", host, err)
	}
	text, err := mc.ParseStatusResponse(body)
	if err != nil {
		t.Fatalf("status answer %q: %v", body, err)
	}
	conn.Write([]byte{9, 1, 1, 2, 3, 4, 5, 6, 7, 8})
	if pong, err := readFrameFrom(r); err != nil || string(pong) != "\x01\x01\x02\x03\x04\x05\x06\x07\x08" {
		t.Fatalf("pong %q, %v", pong, err)
	}
	var status map[string]any
	if err := json.Unmarshal(text, &status); err != nil {
		t.Fatal(err)
	}
	return status
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A route with a status cache asks its backend once for a burst of pings, and each ping gets
// the server's own answer (players, favicon and all) and its pong.
func TestStatusCacheAnswersABurstFromOneLiveAnswer(t *testing.T) {
	for _, transport := range []Protocol{Minecraft, WS} {
		t.Run(string(transport), func(t *testing.T) {
			backend := startLiveStatusServer(t, paperStatus)
			_, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(backend.ln.Addr().String())
				c.Routes[0].StatusCache = time.Hour
			}, transport)
			for range 5 {
				status := pingStatus(t, transport, addr, "play.example.net")
				if got := jsonText(t, status); got != jsonText(t, mustJSON(t, paperStatus)) {
					t.Fatalf("cached answer %s, want the server's %s", got, paperStatus)
				}
			}
			if n := backend.count(); n != 1 {
				t.Errorf("the backend answered %d pings, want 1 for the whole burst", n)
			}
		})
	}
}

func mustJSON(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Without a cache TTL but with last_known, every ping goes to the backend while it answers;
// once it is gone, pings get its last answer marked offline (players and favicon kept); a
// route without last_known gets the fixed fallback.
func TestLastKnownStatusWhenBackendIsDown(t *testing.T) {
	backend := startLiveStatusServer(t, paperStatus)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.ln.Addr().String())
		c.Routes[0].LastKnown = &LastKnown{MOTDPrefix: "[offline] ", VersionName: "offline"}
		c.Routes = append(c.Routes, Route{Hosts: []string{"fixed.example"}, Backends: []pool.Backend{{Addr: backend.ln.Addr().String()}}, StatusCache: time.Nanosecond})
	}, Minecraft)
	pingStatus(t, Minecraft, addr, "play.example.net")
	pingStatus(t, Minecraft, addr, "fixed.example")
	pingStatus(t, Minecraft, addr, "play.example.net")
	if n := backend.count(); n != 3 {
		t.Fatalf("the backend answered %d pings, want 3 (no TTL: every ping is live)", n)
	}
	backend.ln.Close()

	status := pingStatus(t, Minecraft, addr, "play.example.net")
	want := mustJSON(t, paperStatus)
	want["description"] = map[string]any{"text": "[offline] ", "extra": []any{map[string]any{"text": "up and running"}}}
	want["version"] = map[string]any{"name": "offline", "protocol": -1}
	if got := jsonText(t, status); got != jsonText(t, want) {
		t.Errorf("with the backend down the ping got %s, want %s", got, jsonText(t, want))
	}
	status = pingStatus(t, Minecraft, addr, "fixed.example")
	if motd := jsonText(t, status["description"]); motd != jsonText(t, map[string]any{"text": DefaultFallback().Status.MOTD}) {
		t.Errorf("a route without last_known answered %s, want the fixed fallback", motd)
	}
}

// markOffline keeps a plain-string description and anything it does not know.
func TestMarkOfflineKeepsStringDescription(t *testing.T) {
	got, err := LastKnown{MOTDPrefix: "x "}.markOffline([]byte(`{"version":{"name":"v","protocol":5},"description":"hi","modinfo":{"a":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"description":{"extra":["hi"],"text":"x "},"modinfo":{"a":1},"version":{"name":"v","protocol":5}}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
