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

func bansListed(t *testing.T, admin string) []listedBan {
	t.Helper()
	var list struct{ Bans []listedBan }
	adminGet(t, admin, "/bans", &list)
	return list.Bans
}

func hasBan(list []listedBan, kind, value string) bool {
	return slices.ContainsFunc(list, func(b listedBan) bool { return b.Kind == kind && b.Value == value })
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

// The sessions and bans panels in a real browser, against serve with three players in play:
// without the token they say they need it; with it they list the players (a name with HTML in
// it as text), and a kick, a ban, its lift and a move from the page do what the admin API
// does to the players; what the API refuses is said on the page.
func TestDashboardActsOnPlayersInChromium(t *testing.T) {
	logs := startServe(t, playersConfig(t))
	proxy, admin := waitForLog(t, logs, "Listening on")["addr"], "http://"+adminAddr(t, logs)
	players := map[string]*playtest.Client{}
	for _, name := range []string{htmlPlayer, "Griefer", "Alex"} {
		players[name] = joinAs(t, proxy, name)
	}
	var ids map[string]string
	if !testutil.Within(testutil.WaitBound, func() bool { ids = playerIDs(t, admin); return len(ids) == 3 }) {
		t.Fatalf("GET /sessions lists %v, want the three players", ids)
	}
	row := func(name string) string { return `#panel-sessions tr[data-session="` + ids[name] + `"]` }

	b := startChromium(t)
	b.navigate(admin + "/dashboard")
	for _, panel := range []string{"sessions", "bans"} {
		b.waitFor("the "+panel+" panel asking for the token", `document.querySelector('#panel-`+panel+` .status').textContent === 'refused: this needs the admin token (401)'`)
	}
	useToken(b, adminToken)
	for name := range players {
		b.waitFor(name+" listed", `document.querySelector(`+jsString(row(name))+`)`)
	}
	if name := b.text(`document.querySelector(` + jsString(row(htmlPlayer)+" td") + `).textContent`); name != htmlPlayer {
		t.Errorf("the player's name shows as %q, want %q", name, htmlPlayer)
	}
	if n := b.text(`String(document.querySelectorAll('main b').length)`); n != "0" {
		t.Errorf("the player name's HTML became %s elements", n)
	}
	b.screenshot(filepath.Join(t.ArtifactDir(), "dashboard-players.png"))

	b.clickAction(row(htmlPlayer), "kick") // no message: the API refuses
	b.waitFor("the kick without a message refused", `document.getElementById('notice').textContent.includes('failed (400): message')`)
	b.typeInto(`#panel-sessions input.message`, "Server restarting")
	b.clickAction(row(htmlPlayer), "kick")
	b.notice(htmlPlayer + " kicked")
	if reason := disconnectOf(t, players[htmlPlayer], "the kicked player"); reason != "Server restarting" {
		t.Errorf("the kicked player read %q", reason)
	}
	if !testutil.Within(testutil.WaitBound, func() bool { _, on := playerIDs(t, admin)[htmlPlayer]; return !on }) {
		t.Errorf("GET /sessions still lists the kicked player")
	}
	b.waitFor("the kicked player gone from the page", `!document.querySelector(`+jsString(row(htmlPlayer))+`)`)

	b.typeInto(`#panel-sessions input.reason`, "x-ray")
	b.typeInto(`#panel-sessions input.expires`, "1h")
	b.clickAction(row("Griefer"), "ban")
	b.notice("Griefer banned by name griefer")
	if reason := disconnectOf(t, players["Griefer"], "the banned player"); !strings.Contains(reason, "x-ray") {
		t.Errorf("the banned player read %q", reason)
	}
	if list := bansListed(t, admin); !slices.ContainsFunc(list, func(b listedBan) bool {
		return b.Kind == "name" && b.Value == "griefer" && b.Reason == "x-ray" && b.Expires != ""
	}) {
		t.Errorf("GET /bans after the page's ban: %+v", list)
	}
	if got := loginDisconnect(t, proxy, "Griefer"); !strings.Contains(got, "x-ray") {
		t.Errorf("the banned player's next join read %q", got)
	}
	b.waitFor("the ban listed", `document.querySelector('#panel-bans tr[data-ban="name:griefer"]')`)

	b.typeInto(`#panel-bans form.ban-add select`, "address")
	b.typeInto(`#panel-bans form.ban-add input[name="value"]`, "198.51.100.0/24")
	b.typeInto(`#panel-bans form.ban-add input[name="expires"]`, "soon")
	b.click(`#panel-bans form.ban-add button`)
	b.waitFor("a bad length refused", `document.getElementById('notice').textContent.includes('failed (400): expires')`)
	b.typeInto(`#panel-bans form.ban-add input[name="expires"]`, "")
	b.typeInto(`#panel-bans form.ban-add input[name="reason"]`, "a bot farm")
	b.click(`#panel-bans form.ban-add button`)
	b.notice("banned address 198.51.100.0/24: 0 sessions kicked")
	if list := bansListed(t, admin); !hasBan(list, "address", "198.51.100.0/24") {
		t.Errorf("GET /bans after the form's ban: %+v", list)
	}
	b.waitFor("the network listed", `document.querySelector('#panel-bans tr[data-ban="address:198.51.100.0/24"]')`)
	b.screenshot(filepath.Join(t.ArtifactDir(), "dashboard-bans.png"))

	b.click(`#panel-bans tr[data-ban="address:198.51.100.0/24"] button`)
	b.notice("ban of address 198.51.100.0/24 lifted")
	b.click(`#panel-bans tr[data-ban="name:griefer"] button`)
	b.notice("ban of name griefer lifted")
	if list := bansListed(t, admin); len(list) != 0 {
		t.Errorf("GET /bans after both were lifted from the page: %+v", list)
	}
	joinAs(t, proxy, "Griefer") // let in again
	b.waitFor("no ban listed", `document.querySelector('#panel-bans').textContent.includes('No bans.')`)

	b.typeInto(`#panel-sessions input.target`, "lobby.example.net")
	b.clickAction(row("Alex"), "transfer")
	b.notice("to move Alex, say where: host:port")
	b.typeInto(`#panel-sessions input.target`, "lobby.example.net:25570")
	b.clickAction(row("Alex"), "transfer")
	b.notice("Alex sent to lobby.example.net:25570")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if tr, err := players["Alex"].AwaitTransfer(ctx); err != nil || tr.Host != "lobby.example.net" || tr.Port != 25570 {
		t.Errorf("the moved player got %+v, %v", tr, err)
	}

	b.click(`#token-forget`)
	for _, panel := range []string{"sessions", "bans"} {
		b.waitFor("the "+panel+" panel without the token", `!document.querySelector('#panel-`+panel+` tr') &&
			document.querySelector('#panel-`+panel+` .status').textContent === 'refused: this needs the admin token (401)'`)
	}
}
