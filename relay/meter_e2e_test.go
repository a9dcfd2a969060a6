package relay

import (
	"bytes"
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
