package relay

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// webhookReceiver collects the login events posted to it, answering with status.
func webhookReceiver(t *testing.T, status int) (string, chan LoginEvent) {
	t.Helper()
	events := make(chan LoginEvent, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev LoginEvent
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &ev) != nil {
			t.Errorf("webhook got %s %q (%s)", r.Method, body, r.Header.Get("Content-Type"))
		}
		events <- ev
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, events
}

func nextEvent(t *testing.T, events chan LoginEvent) LoginEvent {
	t.Helper()
	select {
	case ev := <-events:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook event came")
	}
	return LoginEvent{}
}

var steveUUID = [16]byte{0x06, 0x9a, 0x79, 0xf4, 0x44, 0xe9, 0x47, 0x26, 0xa5, 0xbe, 0xfc, 0xa9, 0x0e, 0x38, 0xaa, 0xf5}

// loginStart is a 1.20.2+ Login Start for Steve.
func loginStart() []byte {
	return mc.AppendFrame(nil, 0x00, append([]byte("\x05Steve"), steveUUID[:]...))
}

// A login a backend took is counted for its route, its session line names the player and UUID,
// and the webhook gets a join when the name is known and a leave with bytes and duration when
// the session ends, whether Login Start came with the handshake or after the dial.
func TestLoginEventsAndWebhook(t *testing.T) {
	for _, separate := range []bool{false, true} {
		t.Run(map[bool]string{false: "with the handshake", true: "after the dial"}[separate], func(t *testing.T) {
			url, events := webhookReceiver(t, http.StatusNoContent)
			backend := startBackend(t, false)
			log := &logLines{}
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = []Route{{Name: "lobby", Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend.addr()}}}}
				c.LoginWebhook = LoginWebhook{URL: url, Timeout: 5 * time.Second}
				c.Logger = c.Logger.Output(log)
			}, Minecraft)
			conn := dialClient(t, Minecraft, addr)
			defer conn.Close()
			hello := handshakeFrame("play.example.net", mc.NextLogin)
			if separate {
				conn.Write(hello)
				testutil.WaitFor(t, "the backend's hello", func() bool { return backend.helloCount() == 1 })
				conn.Write(loginStart())
			} else {
				conn.Write(append(hello, loginStart()...))
			}
			echo := make([]byte, len(loginStart()))
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(conn, echo); err != nil {
				t.Fatal(err)
			}
			join := nextEvent(t, events)
			want := LoginEvent{Event: "join", Name: "Steve", UUID: "069a79f4-44e9-4726-a5be-fca90e38aaf5",
				Address: conn.LocalAddr().String(), Route: "lobby", Backend: backend.addr()}
			join.Time = time.Time{}
			if join != want {
				t.Errorf("join event %+v, want %+v", join, want)
			}
			waitForMetric(t, srv, "moonbridge_logins_total", map[string]string{"route": "lobby"}, 1)
			conn.Close()
			leave := nextEvent(t, events)
			if leave.Event != "leave" || leave.Name != "Steve" || leave.BytesUp == nil || *leave.BytesUp < int64(len(hello)) ||
				leave.BytesDown == nil || *leave.BytesDown < int64(len(echo)) || leave.Duration == nil {
				t.Errorf("leave event %+v, want Steve's with bytes and duration", leave)
			}
			testutil.WaitFor(t, "Steve's end line with his UUID", func() bool {
				return log.count(`"player":"Steve"`, `"player_uuid":"069a79f4-44e9-4726-a5be-fca90e38aaf5"`, "session ended") == 1
			})
			waitForMetric(t, srv, "moonbridge_login_webhooks_total", map[string]string{"result": "sent"}, 2)
		})
	}
}

// A status ping is no login: no count, no event.
func TestStatusPingIsNoLogin(t *testing.T) {
	url, events := webhookReceiver(t, http.StatusOK)
	backend := startLiveStatusServer(t, paperStatus)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.ln.Addr().String())
		c.LoginWebhook = LoginWebhook{URL: url}
	}, Minecraft)
	pingStatus(t, Minecraft, addr, "h")
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "closed"}, 1)
	waitForMetric(t, srv, "moonbridge_logins_total", map[string]string{"route": "*"}, 0)
	select {
	case ev := <-events:
		t.Errorf("a status ping sent %+v", ev)
	default:
	}
}

// A webhook that fails is counted and logged; the session does not notice.
func TestFailingWebhookIsCounted(t *testing.T) {
	url, events := webhookReceiver(t, http.StatusInternalServerError)
	backend := startBackend(t, false)
	log := &logLines{}
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.LoginWebhook = LoginWebhook{URL: url}
		c.Logger = c.Logger.Output(log)
	}, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	conn.Write(append(handshakeFrame("h", mc.NextLogin), loginStart()...))
	nextEvent(t, events)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, make([]byte, len(loginStart()))); err != nil {
		t.Fatal(err)
	}
	exchange(t, conn, "", 100) // the session goes on
	waitForMetric(t, srv, "moonbridge_login_webhooks_total", map[string]string{"result": "failed"}, 1)
	testutil.WaitFor(t, "the webhook failure line", func() bool { return log.count("login webhook failed", "500") == 1 })
}

// A full queue drops the event, counted, without waiting.
func TestWebhookQueueDropsWhenFull(t *testing.T) {
	e := newLoginEvents()
	e.queue = make(chan queuedEvent, 1)
	hook := LoginWebhook{URL: "http://127.0.0.1:1/"}
	e.enqueue(hook, LoginEvent{Event: "join"})
	e.enqueue(hook, LoginEvent{Event: "join"})
	e.enqueue(LoginWebhook{}, LoginEvent{Event: "join"}) // no URL: nothing queued, nothing dropped
	var dropped dto.Metric
	if err := e.webhooks.WithLabelValues("dropped").Write(&dropped); err != nil {
		t.Fatal(err)
	}
	if got := dropped.GetCounter().GetValue(); got != 1 {
		t.Errorf("dropped %v events, want 1", got)
	}
}
