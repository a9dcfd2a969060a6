package main

import (
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/dashboard"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/routes"
)

// injectedName is a route name that would run script if the page put it in as HTML.
const injectedName = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`

// dashboardConfig serves Minecraft with two routes: injectedName to a live backend (the host
// play names), and "creative" to a closed port that its health check soon takes out; the
// admin port has testToken, and the graphs sample every 100 ms.
func dashboardConfig(t *testing.T) config.Config {
	saved := dashboardSampling
	dashboardSampling = dashboard.Sampling{Every: 100 * time.Millisecond, Points: 50}
	t.Cleanup(func() { dashboardSampling = saved })
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, []byte(testToken))
	cfg := config.Default()
	cfg.Listeners = []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.Minecraft}}}
	cfg.Routes = []routes.Route{
		{Name: injectedName, Hosts: []string{"localhost"}, Backends: []string{taggedBackend(t, 'L')}},
		{Name: "creative", Hosts: []string{"creative.example.net"}, Backends: []string{testutil.ClosedPort(t)},
			HealthCheck: routes.HealthCheck{Mode: routes.HealthTCP, Interval: 50 * time.Millisecond, Fall: 1}},
	}
	cfg.Admin.Listen, cfg.Admin.TokenFile = "127.0.0.1:0", tokenFile
	return cfg
}

// blockAddress gets from's address on the proxy's block list: garbage, as often as the
// default block needs.
func blockAddress(t *testing.T, from, addr string) {
	t.Helper()
	for range relay.DefaultBlock().After {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
		conn, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		conn.Read(make([]byte, 1)) // until the proxy closes it
		conn.Close()
	}
}

// The dashboard in a real browser, against serve with two players: it shows the routes (a
// route name with HTML in it as text, not run), the players, a backend its check took out,
// the graphs and the block list; the sessions, bans and maintenance panels ask for the token;
// clearing the block list is refused without the token, with the page saying why, and works
// with it; with it, a route's move asks where to, says why it refuses this instance's own
// address and moves to another; and the page switches maintenance on and the server list
// shows it.
func TestDashboardInChromium(t *testing.T) {
	logs, _ := stoppableServe(t, dashboardConfig(t))
	addr, admin := waitForLog(t, logs, "Listening on")["addr"], "http://"+adminAddr(t, logs)
	for _, what := range []string{"one", "two"} {
		conn, _ := play(t, addr)
		echoes(t, conn, what)
	}
	blockAddress(t, "127.0.0.3", addr)

	b := startChromium(t)
	b.navigate(admin + "/dashboard")
	b.waitFor("the routes", `document.querySelectorAll('#panel-routes tr[data-route]').length === 2`)
	b.waitFor("the dead backend out", `document.querySelector('#panel-routes tr[data-route="creative"] li[data-state="down"]')`)
	b.waitFor("both graphs", `document.querySelector('svg[data-graph="players"]') && document.querySelector('svg[data-graph="bandwidth"]')`)
	b.waitFor("a blocked address", `document.querySelector('[data-card="Blocked"] .value').textContent === '1'`)
	var labels []string
	b.eval(`[...document.querySelectorAll('#panel-routes .route-label')].map(td => td.textContent)`, &labels)
	if len(labels) != 2 || labels[0] != injectedName || labels[1] != "creative" {
		t.Errorf("route labels %q, want the injected name as text, then creative", labels)
	}
	if players := b.text(`document.querySelector('#panel-routes tr[data-route] .players').textContent`); players != "2" {
		t.Errorf("players on the first route: %q, want 2", players)
	}
	if card := b.text(`document.querySelector('[data-card="Players"] .value').textContent`); card != "2" {
		t.Errorf("the players card says %q, want 2", card)
	}
	if ran := b.text(`String(window.pwned) + document.querySelectorAll('main img, main script').length`); ran != "undefined0" {
		t.Errorf("the route name's HTML ran or became elements: %q", ran)
	}
	for _, panel := range []string{"sessions", "bans", "maintenance"} { // they name players: token only
		b.waitFor("the "+panel+" panel asking for the token", `document.querySelector('#panel-`+panel+` .status').textContent === 'refused: this needs the admin token (401)'`)
	}
	if notice := b.text(`document.getElementById('notice').textContent`); notice != "" {
		t.Errorf("before any action the page says %q", notice)
	}
	b.screenshot(filepath.Join(t.ArtifactDir(), "dashboard.png"))

	b.eval(`document.getElementById('blocklist-clear').click()`, nil)
	b.waitFor("the refusal", `document.getElementById('notice').textContent.includes('refused: this needs the admin token (401)')`)
	if n := blockedCount(t, admin); n != 1 {
		t.Fatalf("after a clear without the token the block list holds %d, want 1", n)
	}
	useToken(b, "not-the-token")
	b.waitFor("the wrong token turned down", `document.getElementById('notice').textContent.startsWith('token not accepted')`)
	useToken(b, testToken)
	b.waitFor("the token taken", `document.getElementById('notice').textContent === 'token accepted'`)
	b.waitFor("the blocked network listed", `document.querySelector('#panel-blocklist li')?.textContent.startsWith('127.0.0.3/32 until')`)
	b.waitFor("maintenance off, read with the token", `document.querySelector('#panel-maintenance [data-maintenance="off"]')`)
	b.eval(`document.getElementById('blocklist-clear').click()`, nil)
	b.waitFor("the clear done", `document.getElementById('notice').textContent === 'block list cleared: 1 address'`)
	if n := blockedCount(t, admin); n != 0 {
		t.Errorf("after a clear with the token the block list holds %d, want 0", n)
	}
	b.waitFor("no address blocked", `document.querySelector('[data-card="Blocked"] .value').textContent === '0'`)
	if kept := b.text(`sessionStorage.getItem('moonbridge.admin.token') + '|' + localStorage.length + '|' + document.cookie`); kept != testToken+"|0|" {
		t.Errorf("the token is kept as %q, want in sessionStorage only", kept)
	}
	b.screenshot(filepath.Join(t.ArtifactDir(), "dashboard-token.png"))

	moveCreative := func(to string) {
		b.eval(`document.querySelector('#panel-routes input.move-to').value = `+jsString(to)+
			`; document.querySelector('#panel-routes tr[data-route="creative"] button').click()`, nil)
	}
	moveCreative("")
	b.waitFor("a route's move without a destination turned down", `document.getElementById('notice').textContent.includes('say where')`)
	moveCreative(addr)
	b.waitFor("a route's move to this instance refused", `document.getElementById('notice').textContent.includes('come straight back to the same route')`)
	moveCreative("127.0.0.1:1")
	b.waitFor("a route's move to another address done", `document.getElementById('notice').textContent === 'players of creative to 127.0.0.1:1: 0 moving, 0 staying'`)

	b.eval(`document.querySelector('#panel-maintenance [data-maintenance] button').click()`, nil)
	b.waitFor("maintenance switched from the page", `document.getElementById('notice').textContent === 'maintenance on for every route'`)
	if v, _ := json.Marshal(serverList(t, addr)["version"]); !strings.Contains(string(v), `"protocol":-1`) {
		t.Errorf("after the page switched maintenance on, the server list's version is %s", v)
	}
	setAllowlistFromThePage(t, b, admin)
}

// setAllowlistFromThePage: with maintenance on for every route and a message set through the
// API, the page sets who is let in; the entry keeps its message.
func setAllowlistFromThePage(t *testing.T, b *browser, admin string) {
	t.Helper()
	if code, body := testutil.BearerCall(t, "PUT", admin+"/maintenance", testToken, `{"on":true,"message":"Back at 18:00"}`); code != http.StatusOK {
		t.Fatalf("PUT /maintenance: %d %s", code, body)
	}
	b.waitFor("the message on the page", `document.querySelector('#panel-maintenance [data-message]')?.textContent === 'Message: Back at 18:00'`)
	b.eval(`const i = document.querySelector('#panel-maintenance input.allow'); i.value = 'Steve, 069a79f4-44e9-4726-a5be-fca90e38aaf5';`+
		` i.dispatchEvent(new Event('input')); i.form.requestSubmit()`, nil)
	b.waitFor("the allowlist saved", `document.getElementById('notice').textContent === 'allowlist of every route: Steve, 069a79f4-44e9-4726-a5be-fca90e38aaf5'`)
	_, body := testutil.BearerCall(t, "GET", admin+"/maintenance", testToken, "")
	var st struct {
		Maintenance []struct {
			Route, Message string
			On             bool
			Allow          []string
		}
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || len(st.Maintenance) != 1 {
		t.Fatalf("GET /maintenance: %v %s", err, body)
	}
	if e := st.Maintenance[0]; !e.On || e.Message != "Back at 18:00" || strings.Join(e.Allow, ",") != "Steve,069a79f4-44e9-4726-a5be-fca90e38aaf5" {
		t.Errorf("after the page set the allowlist the entry is %+v, want on, its message kept, Steve and the UUID", e)
	}
	b.screenshot(filepath.Join(t.ArtifactDir(), "dashboard-allowlist.png"))
}

// useToken types token into the page's token field and submits it.
func useToken(b *browser, token string) {
	b.t.Helper()
	b.eval(`document.getElementById('token-input').value = `+jsString(token)+`; document.getElementById('token-use').click()`, nil)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// blockedCount is how many networks GET /blocklist lists.
func blockedCount(t *testing.T, admin string) int {
	t.Helper()
	return strings.Count(httpGet(t, admin+"/blocklist"), `"network"`)
}

// The page and its files carry a Content-Security-Policy without inline script and deny
// framing; the state holds counts and no player address.
func TestDashboardHeadersAndState(t *testing.T) {
	logs, _ := stoppableServe(t, dashboardConfig(t))
	addr, admin := waitForLog(t, logs, "Listening on")["addr"], "http://"+adminAddr(t, logs)
	conn, _ := play(t, addr)
	for _, path := range []string{"/dashboard", "/dashboard/", "/dashboard/assets/app.js", "/dashboard/state"} {
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(admin + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != 200 || !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe-inline") ||
			!strings.Contains(csp, "frame-ancestors 'none'") || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: %s, CSP %q, X-Frame-Options %q", path, resp.Status, csp, resp.Header.Get("X-Frame-Options"))
		}
	}
	state := httpGet(t, admin+"/dashboard/state")
	if player := conn.LocalAddr().(*net.TCPAddr).AddrPort().String(); strings.Contains(state, player) || !strings.Contains(state, `"players":1`) {
		t.Errorf("the state names the player's address %s, or does not count one player:\n%s", player, state)
	}
}
