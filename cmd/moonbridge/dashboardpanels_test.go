package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/dashboard"
	"github.com/moonbridge/moonbridge/relay"
)

// quietRelay is a relay with one route and nobody on it, for the panels' test.
type quietRelay struct{}

func (quietRelay) Overview() relay.Overview {
	return relay.Overview{Routes: []relay.RouteOverview{{Label: "lobby", Hosts: []string{"lobby.example.net"}}}}
}
func (quietRelay) Health() relay.Health { return relay.Health{Live: true, Ready: true} }

// plannedAPIs answers the sessions, bans and maintenance paths as those APIs are planned (the
// JSON the panels' modules read), the token needed for each, and keeps what it was sent.
type plannedAPIs struct {
	mu   sync.Mutex
	sent []string // "METHOD path body"
}

// plannedPlayer is a player name that would run script if the page put it in as HTML.
const plannedPlayer = `<img src=x onerror="window.pwned=3">Steve`

func (p *plannedAPIs) handle(mux *http.ServeMux) {
	answers := map[string]any{
		"GET /sessions": map[string]any{"sessions": []map[string]any{{"id": "s7", "route": "lobby", "name": plannedPlayer,
			"uuid": "069a79f4-44e9-4726-a5be-fca90e38aaf5", "address": "203.0.113.7", "transport": "wss", "up": 2048, "down": 4096,
			"since": "2026-12-04T15:00:00Z"}}},
		"POST /sessions/{id}/kick": map[string]any{"kicked": true},
		"GET /bans":                map[string]any{"bans": []map[string]any{{"kind": "name", "value": "Griefer", "reason": "grief"}}},
		"POST /bans":               map[string]any{"banned": true},
		"DELETE /bans":             map[string]any{"lifted": true},
		"GET /maintenance":         map[string]any{"on": false, "message": "Back soon", "routes": []map[string]any{{"route": "lobby", "on": false}}},
		"PUT /maintenance":         map[string]any{"on": true},
	}
	for pattern, answer := range answers {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if !config.CarriesToken(r, testToken) {
				http.Error(w, "this needs the token", http.StatusUnauthorized)
				return
			}
			body, _ := io.ReadAll(r.Body)
			p.mu.Lock()
			p.sent = append(p.sent, r.Method+" "+r.URL.Path+" "+string(body))
			p.mu.Unlock()
			writeJSON(w, answer)
		})
	}
}

// received says whether want was sent, and lists what was.
func (p *plannedAPIs) received(want string) (bool, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.sent, want), slices.Clone(p.sent)
}

// The sessions, bans and maintenance panels against those APIs as planned: without the token
// they say they need it; with it they list what the APIs answer (a player name with HTML in it
// as text), and their actions send the token and the JSON the APIs take.
func TestDashboardPanelsOfThePlannedAPIs(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, []byte(testToken))
	mux, apis := http.NewServeMux(), &plannedAPIs{}
	dashboard.New(quietRelay{}, dashboard.DefaultSampling(), true).Handle(mux)
	apis.handle(mux)
	server := httptest.NewServer(newAdminGuard(config.Admin{TokenFile: tokenFile}, zerolog.Nop()).wrap(mux))
	defer server.Close()

	b := startChromium(t)
	b.navigate(server.URL + "/dashboard")
	b.waitFor("the sessions panel asking for the token", `document.querySelector('#panel-sessions .status').textContent === 'refused: this needs the admin token (401)'`)
	useToken(b, testToken)
	b.waitFor("the player listed", `document.querySelector('#panel-sessions tr[data-session="s7"]')`)
	b.waitFor("the ban listed", `document.querySelector('#panel-bans tr[data-ban="name:Griefer"]')`)
	b.waitFor("maintenance off", `document.querySelector('#panel-maintenance [data-maintenance="off"]')`)
	if name := b.text(`document.querySelector('#panel-sessions tr[data-session="s7"] td').textContent`); name != plannedPlayer {
		t.Errorf("the player's name shows as %q", name)
	}
	if ran := b.text(`String(window.pwned) + document.querySelectorAll('main img').length`); ran != "undefined0" {
		t.Errorf("the player name's HTML ran or became elements: %q", ran)
	}
	b.screenshot(filepath.Join(t.ArtifactDir(), "dashboard-panels.png"))

	b.eval(`document.querySelector('#panel-sessions input.reason').value = 'bye';
		[...document.querySelectorAll('#panel-sessions tr[data-session="s7"] button')].find(b => b.textContent === 'kick').click()`, nil)
	b.waitFor("the kick said", `document.getElementById('notice').textContent === `+jsString(plannedPlayer+" kicked"))
	b.eval(`const f = document.querySelector('#panel-bans form.ban-add'); f.querySelector('select').value = 'uuid';
		f.querySelectorAll('input')[0].value = 'abc'; f.querySelectorAll('input')[1].value = 'cheat'; f.querySelectorAll('input')[2].value = '24h';
		f.querySelector('button').click()`, nil)
	b.waitFor("the ban said", `document.getElementById('notice').textContent === 'abc banned'`)
	b.eval(`document.querySelector('#panel-bans tr[data-ban="name:Griefer"] button').click()`, nil)
	b.waitFor("the lift said", `document.getElementById('notice').textContent === 'ban of Griefer lifted'`)
	b.eval(`document.querySelector('#panel-maintenance [data-maintenance] button').click()`, nil)
	b.waitFor("maintenance said", `document.getElementById('notice').textContent === 'maintenance on for every route'`)
	b.eval(`document.getElementById('token-forget').click()`, nil)
	b.waitFor("the players hidden without the token", `!document.querySelector('#panel-sessions tr[data-session]') &&
		document.querySelector('#panel-sessions .status').textContent === 'refused: this needs the admin token (401)'`)
	for _, want := range []string{
		`POST /sessions/s7/kick {"message":"bye","reason":"bye"}`,
		`POST /bans {"kind":"uuid","value":"abc","reason":"cheat","for":"24h"}`,
		`DELETE /bans {"kind":"name","value":"Griefer"}`,
		`PUT /maintenance {"on":true}`,
	} {
		if ok, sent := apis.received(want); !ok {
			t.Errorf("the APIs were not sent %s; they got %q", want, sent)
		}
	}
}
