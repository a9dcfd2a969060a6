package client

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/bench/modern/playtest"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/ws"
)

var followConfig = FollowConfig{Host: "localhost", Port: 25565, Interval: 20 * time.Millisecond, Payload: 600}

// followAll joins players followers through d, runs them while drain moves them, and returns
// their results.
func followAll(t *testing.T, d Dialer, players int, drain func()) []FollowResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	results := make([]FollowResult, players)
	var wg sync.WaitGroup
	for i := range players {
		f, err := JoinFollower(ctx, d, "f"+strconv.Itoa(i), followConfig)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		wg.Go(func() { results[i] = f.Run(ctx) })
	}
	time.Sleep(3 * followConfig.Interval) // some echoes on the first server
	drain()
	wg.Wait()
	return results
}

func hostPort(t *testing.T, addr string) (string, uint16) {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	p, perr := strconv.ParseUint(port, 10, 16)
	if err != nil || perr != nil {
		t.Fatalf("address %q", addr)
	}
	return host, uint16(p)
}

func TestFollowersFollowATransferOverTCP(t *testing.T) {
	testutil.CheckGoroutines(t)
	be := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	from, to := playtest.StartForwarder(t, be), playtest.StartForwarder(t, be)
	host, port := hostPort(t, to.Addr)
	results := followAll(t, TCPDialer{Addr: from.Addr}, 3, func() {
		from.Drain(func(i int) playtest.Move {
			if i == 2 {
				return playtest.Move{Reason: "Server closed"}
			}
			return playtest.Move{Host: host, Port: port, Cookies: map[string][]byte{"moonbridge:transfer": {1, 2, 3}}}
		})
	})
	moved := 0
	for _, r := range results {
		if r.Before.OK < 1 || r.Before.Bad != 0 {
			t.Errorf("%s: echoes before %+v", r.Name, r.Before)
		}
		switch r.Outcome {
		case OutcomeMoved:
			moved++
			if r.To != to.Addr || r.After != (EchoCount{OK: 1}) || r.State != modern.StatePlay || !r.BackAt.After(r.TransferAt) {
				t.Errorf("moved %+v", r)
			}
		case OutcomeDisconnected:
			if r.Detail != "Server closed" {
				t.Errorf("disconnected %+v", r)
			}
		default:
			t.Errorf("%+v", r)
		}
	}
	transfers := 0
	for _, l := range be.Logins() {
		if l.NextState == modern.NextTransfer {
			transfers++
		}
	}
	if moved != 2 || transfers != 2 {
		t.Errorf("%d moved, %d transfer logins; want 2 and 2", moved, transfers)
	}
}

// wsFront serves ws on a loopback port in front of a forwarder, keeping the paths asked.
type wsFront struct {
	srv   *httptest.Server
	mu    sync.Mutex
	paths []string
}

func startWSFront(t *testing.T, fw *playtest.Forwarder) *wsFront {
	f := &wsFront{}
	f.srv = httptest.NewServer(ws.NewServer(ws.ServerConfig{}, func(c *ws.Conn, r *http.Request) {
		f.mu.Lock()
		f.paths = append(f.paths, r.URL.Path)
		f.mu.Unlock()
		fw.Serve(c)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// Over ws the follower dials the Transfer's address with the URL it had: same path.
func TestFollowerFollowsATransferOverWebSocket(t *testing.T) {
	be := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
	fromForwarder := playtest.StartForwarder(t, be)
	from, to := startWSFront(t, fromForwarder), startWSFront(t, playtest.StartForwarder(t, be))
	d, err := NewDialer(TransportWS, "ws://"+strings.TrimPrefix(from.srv.URL, "http://")+"/mc")
	if err != nil {
		t.Fatal(err)
	}
	host, port := hostPort(t, strings.TrimPrefix(to.srv.URL, "http://"))
	results := followAll(t, d, 1, func() {
		fromForwarder.Drain(func(int) playtest.Move { return playtest.Move{Host: host, Port: port} })
	})
	if r := results[0]; r.Outcome != OutcomeMoved || r.After.OK != 1 {
		t.Errorf("%+v", r)
	}
	to.mu.Lock()
	defer to.mu.Unlock()
	if len(to.paths) != 1 || to.paths[0] != "/mc" {
		t.Errorf("the second server was asked for %q", to.paths)
	}
}

func TestRedirectKeepsTheTransport(t *testing.T) {
	d, _ := NewDialer(TransportWSS, "wss://play.example:443/mc")
	r, err := Redirect(d, "127.0.0.1:9")
	if wd, ok := r.(webSocketDialer); err != nil || !ok || wd.cfg.Address != "127.0.0.1:9" || wd.cfg.URL != "wss://play.example:443/mc" {
		t.Errorf("Redirect = %+v, %v", r, err)
	}
	if _, err := Redirect(Online{Dialer: d}, "127.0.0.1:9"); err == nil {
		t.Error("an online dialer was redirected")
	}
}
