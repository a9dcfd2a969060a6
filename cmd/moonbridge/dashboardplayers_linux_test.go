package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern/playtest"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

// htmlPlayer is a player name that would become an element if the page put it in as HTML.
const htmlPlayer = `<b>Steve</b>`

// playersConfig serves Minecraft (raw TCP) in front of a 1.21 backend, with the admin token
// and a bans file.
func playersConfig(t *testing.T) config.Config {
	cfg := config.Default()
	cfg.Listeners[0].Addr = "127.0.0.1:0"
	cfg.Routes[0].Backends[0] = playtest.StartBackend(t, playtest.BackendOptions{Compression: 256}).Addr
	cfg.Admin.Listen, cfg.Admin.TokenFile = "127.0.0.1:0", writeAdminToken(t)
	cfg.BansFile = filepath.Join(t.TempDir(), "bans.yaml")
	return cfg
}

// joinAs joins the proxy at addr as name, up to play.
func joinAs(t *testing.T, addr, name string) *playtest.Client {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := playtest.Join(conn, "localhost", 25565, name, 2, nil)
	if err != nil {
		conn.Close()
		t.Fatalf("%s joining: %v", name, err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// disconnectOf waits for the Disconnect cl is sent and returns its reason.
func disconnectOf(t *testing.T, cl *playtest.Client, who string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := cl.AwaitTransfer(ctx)
	var de *playtest.DisconnectError
	if !errors.As(err, &de) {
		t.Fatalf("%s got %v, want a Disconnect", who, err)
	}
	return de.Reason
}

// adminGet is GET path's JSON on the admin port, with the token, decoded into out.
func adminGet(t *testing.T, admin, path string, out any) {
	t.Helper()
	code, body := testutil.BearerCall(t, "GET", admin+path, adminToken, "")
	if code != 200 {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal([]byte(body), out); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// playerIDs is GET /sessions as player name -> session id, of the sessions that relay.
func playerIDs(t *testing.T, admin string) map[string]string {
	t.Helper()
	var list struct {
		Sessions []struct {
			ID, Player string
			Relaying   bool
		}
	}
	adminGet(t, admin, "/sessions", &list)
	ids := map[string]string{}
	for _, s := range list.Sessions {
		if s.Relaying {
			ids[s.Player] = s.ID
		}
	}
	return ids
}

// listedBan is one entry of GET /bans.
type listedBan struct{ Kind, Value, Reason, Expires string }

// bansListed is GET /bans's list.
func bansListed(t *testing.T, admin string) []listedBan {
	t.Helper()
	var list struct{ Bans []listedBan }
	adminGet(t, admin, "/bans", &list)
	return list.Bans
}

// notice waits until the page's notice says want.
func (b *browser) notice(want string) {
	b.t.Helper()
	b.waitFor("the notice "+want, `document.getElementById('notice').textContent === `+jsString(want))
}

// click clicks the element selector finds.
func (b *browser) click(selector string) {
	b.t.Helper()
	b.eval(`document.querySelector(`+jsString(selector)+`).click()`, nil)
}

// clickAction clicks the button of the row (a selector) that says verb.
func (b *browser) clickAction(row, verb string) {
	b.t.Helper()
	b.eval(`[...document.querySelectorAll(`+jsString(row+" button")+`)].find(b => b.textContent === `+jsString(verb)+`).click()`, nil)
}

// typeInto sets the value of the input selector finds.
func (b *browser) typeInto(selector, value string) {
	b.t.Helper()
	b.eval(`void (document.querySelector(`+jsString(selector)+`).value = `+jsString(value)+`)`, nil)
}

// playersPage is the page of the players test with what it acts on: serve's proxy and admin
// addresses, and each player's client and session id.
type playersPage struct {
	*browser
	proxy, admin string
	players      map[string]*playtest.Client
	ids          map[string]string
}

// row is the sessions panel's row of name.
func (p *playersPage) row(name string) string {
	return `#panel-sessions tr[data-session="` + p.ids[name] + `"]`
}

// The sessions and bans panels in a real browser, against serve with three players in play:
// without the token they say they need it; with it they list the players (a name with HTML in
// it as text), and a kick, a ban, its lift and a move from the page do what the admin API
// does to the players; what the API refuses is said on the page.
func TestDashboardActsOnPlayersInChromium(t *testing.T) {
	logs := startServe(t, playersConfig(t))
	p := &playersPage{proxy: waitForLog(t, logs, "Listening on")["addr"], admin: "http://" + adminAddr(t, logs),
		players: map[string]*playtest.Client{}}
	for _, name := range []string{htmlPlayer, "Griefer", "Alex"} {
		p.players[name] = joinAs(t, p.proxy, name)
	}
	if !testutil.Within(testutil.WaitBound, func() bool { p.ids = playerIDs(t, p.admin); return len(p.ids) == 3 }) {
		t.Fatalf("GET /sessions lists %v, want the three players", p.ids)
	}
	p.browser = startChromium(t)
	p.navigate(p.admin + "/dashboard")
	p.needsToken()
	useToken(p.browser, adminToken)
	p.listsPlayers(t)
	p.kicks(t)
	p.bansPlayer(t)
	p.bansNetwork(t)
	p.liftsBans(t)
	p.moves(t)
	p.click(`#token-forget`)
	p.needsToken()
}

// needsToken: the sessions and bans panels list nothing and say they need the token.
func (p *playersPage) needsToken() {
	for _, panel := range []string{"sessions", "bans"} {
		p.waitFor("the "+panel+" panel asking for the token", `!document.querySelector('#panel-`+panel+` tr') &&
			document.querySelector('#panel-`+panel+` .status').textContent === 'refused: this needs the admin token (401)'`)
	}
}

func (p *playersPage) listsPlayers(t *testing.T) {
	for name := range p.players {
		p.waitFor(name+" listed", `document.querySelector(`+jsString(p.row(name))+`)`)
	}
	if name := p.text(`document.querySelector(` + jsString(p.row(htmlPlayer)+" td") + `).textContent`); name != htmlPlayer {
		t.Errorf("the player's name shows as %q, want %q", name, htmlPlayer)
	}
	if n := p.text(`String(document.querySelectorAll('main b').length)`); n != "0" {
		t.Errorf("the player name's HTML became %s elements", n)
	}
	p.screenshot(filepath.Join(t.ArtifactDir(), "dashboard-players.png"))
}

// kicks htmlPlayer from the page: refused without a message, then it gets the Disconnect and
// its session ends.
func (p *playersPage) kicks(t *testing.T) {
	p.clickAction(p.row(htmlPlayer), "kick")
	p.waitFor("the kick without a message refused", `document.getElementById('notice').textContent.includes('failed (400): message')`)
	p.typeInto(`#panel-sessions input.message`, "Server restarting")
	p.clickAction(p.row(htmlPlayer), "kick")
	p.notice(htmlPlayer + " kicked")
	if reason := disconnectOf(t, p.players[htmlPlayer], "the kicked player"); reason != "Server restarting" {
		t.Errorf("the kicked player read %q", reason)
	}
	if !testutil.Within(testutil.WaitBound, func() bool { _, on := playerIDs(t, p.admin)[htmlPlayer]; return !on }) {
		t.Errorf("GET /sessions still lists the kicked player")
	}
	p.waitFor("the kicked player gone from the page", `!document.querySelector(`+jsString(p.row(htmlPlayer))+`)`)
}

// bansPlayer bans Griefer from its row: it is kicked with the reason, the ban is listed, and
// its next join is refused with the reason.
func (p *playersPage) bansPlayer(t *testing.T) {
	p.typeInto(`#panel-sessions input.reason`, "x-ray")
	p.typeInto(`#panel-sessions input.expires`, "1h")
	p.clickAction(p.row("Griefer"), "ban")
	p.notice("Griefer banned by name griefer")
	if reason := disconnectOf(t, p.players["Griefer"], "the banned player"); !strings.Contains(reason, "x-ray") {
		t.Errorf("the banned player read %q", reason)
	}
	if list := bansListed(t, p.admin); !slices.ContainsFunc(list, func(b listedBan) bool {
		return b.Kind == "name" && b.Value == "griefer" && b.Reason == "x-ray" && b.Expires != ""
	}) {
		t.Errorf("GET /bans after the page's ban: %+v", list)
	}
	if got := loginDisconnect(t, p.proxy, "Griefer"); !strings.Contains(got, "x-ray") {
		t.Errorf("the banned player's next join read %q", got)
	}
	p.waitFor("the ban listed", `document.querySelector('#panel-bans tr[data-ban="name:griefer"]')`)
}

// bansNetwork bans a network with the form: a bad length is refused, then it is listed.
func (p *playersPage) bansNetwork(t *testing.T) {
	form := `#panel-bans form.ban-add `
	p.typeInto(form+`select`, "address")
	p.typeInto(form+`input[name="value"]`, "198.51.100.0/24")
	p.typeInto(form+`input[name="expires"]`, "soon")
	p.click(form + `button`)
	p.waitFor("a bad length refused", `document.getElementById('notice').textContent.includes('failed (400): expires')`)
	p.typeInto(form+`input[name="expires"]`, "")
	p.typeInto(form+`input[name="reason"]`, "a bot farm")
	p.click(form + `button`)
	p.notice("banned address 198.51.100.0/24: 0 sessions kicked")
	if list := bansListed(t, p.admin); !slices.ContainsFunc(list, func(b listedBan) bool {
		return b.Kind == "address" && b.Value == "198.51.100.0/24" && b.Reason == "a bot farm"
	}) {
		t.Errorf("GET /bans after the form's ban: %+v", list)
	}
	p.waitFor("the network listed", `document.querySelector('#panel-bans tr[data-ban="address:198.51.100.0/24"]')`)
	p.screenshot(filepath.Join(t.ArtifactDir(), "dashboard-bans.png"))
}

// liftsBans lifts both bans from the page (a network's value holds a slash): none is left,
// and Griefer joins again.
func (p *playersPage) liftsBans(t *testing.T) {
	p.click(`#panel-bans tr[data-ban="address:198.51.100.0/24"] button`)
	p.notice("ban of address 198.51.100.0/24 lifted")
	p.click(`#panel-bans tr[data-ban="name:griefer"] button`)
	p.notice("ban of name griefer lifted")
	if list := bansListed(t, p.admin); len(list) != 0 {
		t.Errorf("GET /bans after both were lifted from the page: %+v", list)
	}
	joinAs(t, p.proxy, "Griefer")
	p.waitFor("no ban listed", `document.querySelector('#panel-bans').textContent.includes('No bans.')`)
}

// moves Alex from the page: without a port the page asks for one; with it Alex gets the Transfer.
func (p *playersPage) moves(t *testing.T) {
	p.typeInto(`#panel-sessions input.target`, "lobby.example.net")
	p.clickAction(p.row("Alex"), "transfer")
	p.notice("to move Alex, say where: host:port")
	p.typeInto(`#panel-sessions input.target`, "lobby.example.net:25570")
	p.clickAction(p.row("Alex"), "transfer")
	p.notice("Alex sent to lobby.example.net:25570")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if tr, err := p.players["Alex"].AwaitTransfer(ctx); err != nil || tr.Host != "lobby.example.net" || tr.Port != 25570 {
		t.Errorf("the moved player got %+v, %v", tr, err)
	}
}
