package relay

import (
	"bytes"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
)

// TestLoginMeterSurvivesReload: the online routes' login meter is the server's, not the
// configuration's: a reload that changes its rate keeps what the bucket holds (a spent burst is
// not filled again, so the next player finds no turn and is told why), and the new rate applies.
func TestLoginMeterSurvivesReload(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardBungeeCord}
	setup := startLoginProxy(t, true, &backend, "go", Minecraft)
	slow := auth.MeterSettings{Rate: 0.01, Burst: 1, Queue: 0, MaxWait: time.Second}
	setMeter := func(set auth.MeterSettings) {
		t.Helper()
		if _, err := reload(setup.srv, func(c *Config) { c.LoginMeter = set }); err != nil {
			t.Fatal(err)
		}
	}
	setMeter(slow)
	good := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions})
	backendLogin(t, &backend)
	readLoginSuccess(t, good, false)

	slow.Rate = 0.02
	setMeter(slow)
	refused := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Steve", Protocol: 767, Sessions: setup.sessions})
	body, err := refused.ReadFrame()
	if id, fields, _ := mc.PacketID(body); err != nil || id != mc.LoginDisconnectID || !bytes.Contains(fields, []byte("Too many players are logging in")) {
		t.Fatalf("player after the reload read %q %v, want the meter's disconnect", body, err)
	}
	waitForMetric(t, setup.srv, "moonbridge_login_meter_refused_total", map[string]string{"reason": "queue_full"}, 1)
	waitForMetric(t, setup.srv, "moonbridge_proxy_logins_total", map[string]string{"outcome": auth.OutcomeMeterRefused}, 1)

	setMeter(auth.MeterSettings{Rate: 100, Burst: 1, Queue: 0, MaxWait: time.Second})
	time.Sleep(20 * time.Millisecond) // two tokens' worth at 100/s
	again := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Steve", Protocol: 767, Sessions: setup.sessions})
	backendLogin(t, &backend)
	readLoginSuccess(t, again, false)
	waitForMetric(t, setup.srv, "moonbridge_session_server_requests_total", nil, 2)
}

// TestLoginMeterCountsTheClientsNetwork: the login meter takes the client's network as the
// limits count it (limits.ipv4_network_prefix): while a login of 127.0.0.1 waits for its turn,
// one of 127.0.0.2 is refused before its Encryption Request at the default /24 (the same
// network: one at a time), and waits for a turn of its own at /32.
func TestLoginMeterCountsTheClientsNetwork(t *testing.T) {
	for _, c := range []struct {
		prefix int
		busy   bool
	}{{24, true}, {32, false}} {
		t.Run(fmt.Sprintf("/%d", c.prefix), func(t *testing.T) {
			backend := authtest.Backend{Forwarding: auth.ForwardBungeeCord}
			setup := startLoginProxy(t, true, &backend, "go", Minecraft)
			if _, err := reload(setup.srv, func(cfg *Config) {
				// A token every 2 s: the login after the burst's must come before the next token,
				// which the first's whole login and the second's Encryption Response can take half
				// a second for on a loaded machine; at /32 the neighbour waits two tokens.
				cfg.LoginMeter = auth.MeterSettings{Rate: 0.5, Burst: 1, Queue: 5, MaxWait: 10 * time.Second}
				cfg.Limits.IPv4NetworkPrefix = c.prefix
			}); err != nil {
				t.Fatal(err)
			}
			first := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions})
			backendLogin(t, &backend)
			readLoginSuccess(t, first, false) // the burst
			waiting := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Steve", Protocol: 767, Sessions: setup.sessions})
			waitForMetric(t, setup.srv, "moonbridge_login_meter_waiting", nil, 1)

			conn, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).Dial("tcp", setup.addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			conn.SetDeadline(time.Now().Add(30 * time.Second))
			neighbour, err := authtest.Player{Name: "Kai", Protocol: 767, Sessions: setup.sessions}.Login(conn, "play.example.net")
			if err != nil {
				t.Fatalf("login from 127.0.0.2: %v", err)
			}
			if c.busy {
				body, err := neighbour.ReadFrame()
				if id, fields, _ := mc.PacketID(body); err != nil || id != mc.LoginDisconnectID || !bytes.Contains(fields, []byte("Too many players are logging in")) {
					t.Fatalf("login from 127.0.0.2 read %q %v, want the meter's disconnect", body, err)
				}
				waitForMetric(t, setup.srv, "moonbridge_login_meter_refused_total", map[string]string{"reason": auth.MeterNetworkBusy}, 1)
			}
			backendLogin(t, &backend)
			readLoginSuccess(t, waiting, false)
			if !c.busy {
				backendLogin(t, &backend)
				readLoginSuccess(t, neighbour, false)
			}
		})
	}
}
