package relay

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// startGameServer answers status pings with body and echoes what a login sends, as a server
// that is up.
func startGameServer(t *testing.T, body string) string {
	t.Helper()
	return startSwitchableGameServer(t, body).addr
}

// gameServer is startGameServer's, whose status answers can be stopped while its players play.
type gameServer struct {
	addr       string
	statusDown atomic.Bool // status pings are closed unanswered
}

func startSwitchableGameServer(t *testing.T, body string) *gameServer {
	t.Helper()
	g := &gameServer{}
	ln := testutil.Serve(t, func(conn net.Conn) {
		defer conn.Close()
		r := bufio.NewReader(conn)
		hello, err := mc.ReadHello(r, 0)
		if err != nil || hello.Legacy != nil {
			return
		}
		if hello.Handshake.NextState != mc.NextStatus {
			io.Copy(conn, r)
			return
		}
		if !g.statusDown.Load() {
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			mc.ServeStatusJSON(r, []byte(body), func(frame []byte) error { _, err := conn.Write(frame); return err })
		}
	})
	g.addr = ln.Addr().String()
	return g
}

// A second player from one address is refused past max_players_per_address, while a ping from
// it and a player from another address are not; the slot is free once the player leaves.
func TestMaxPlayersPerAddress(t *testing.T) {
	testutil.CheckGoroutines(t)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(startGameServer(t, paperStatus))
		c.Limits.MaxPlayersPerAddress = 1
	}, Minecraft)
	first := dialFrom(t, "127.0.7.1", addr)
	exchange(t, first, "h", 10)
	if text := loginAnswer(t, dialFrom(t, "127.0.7.1", addr)); !strings.Contains(text, "1 players per address") {
		t.Errorf("a second player from the address: %q, want the limit named", text)
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedPlayersPerAddr}, 1)
	if status := askStatus(t, dialFrom(t, "127.0.7.1", addr)); !strings.Contains(status, "Paper") {
		t.Errorf("a ping from the address: %q, want the server's answer", status)
	}
	exchange(t, dialFrom(t, "127.0.7.2", addr), "h", 10)
	first.Close()
	if !testutil.Within(testutil.WaitBound, func() bool {
		return !strings.Contains(loginAnswer(t, dialFrom(t, "127.0.7.1", addr)), "players per address")
	}) {
		t.Error("the address's player slot was not given back")
	}
}

// A route with max_players refuses the login past it with the server-full message, and its
// server-list entry shows max_players and the players on the route, the server's sample and
// the rest of its answer kept.
func TestRouteMaxPlayers(t *testing.T) {
	testutil.CheckGoroutines(t)
	const body = `{"version":{"name":"Paper 1.21","protocol":767},"players":{"max":20,"online":3,` +
		`"sample":[{"name":"Alex","id":"00000000-0000-0000-0000-000000000001"}]},"description":{"text":"up"}}`
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(startGameServer(t, body))
		c.Routes[0].MaxPlayers = 1
	}, Minecraft)
	line := func() map[string]any { return pingStatus(t, Minecraft, addr, "h")["players"].(map[string]any) }
	if p := line(); p["max"] != 1.0 || p["online"] != 0.0 || p["sample"] == nil {
		t.Errorf("player line with nobody on: %v, want max 1, online 0 and the server's sample", p)
	}
	first := dialFrom(t, "127.0.8.1", addr)
	exchange(t, first, "h", 10)
	if p := line(); p["max"] != 1.0 || p["online"] != 1.0 {
		t.Errorf("player line with one on: %v, want max 1, online 1", p)
	}
	if text := loginAnswer(t, dialFrom(t, "127.0.8.2", addr)); !strings.Contains(text, DefaultFullMessage) {
		t.Errorf("a login past max_players: %q, want the full message", text)
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedRoutePlayers}, 1)
	first.Close()
	if !testutil.Within(testutil.WaitBound, func() bool { return line()["online"] == 0.0 }) {
		t.Error("the player who left is still counted on the route")
	}
}

// withPlayers replaces max and online, keeps the sample and every other key, and writes a
// player line where the server gave none or no object.
func TestWithPlayers(t *testing.T) {
	cases := map[string]string{
		`{"players":{"max":20,"online":3,"sample":[]},"x":1}`: `{"players":{"max":5,"online":2,"sample":[]},"x":1}`,
		`{"description":"up"}`:                                `{"description":"up","players":{"max":5,"online":2}}`,
		`{"players":7}`:                                       `{"players":{"max":5,"online":2}}`,
	}
	for in, want := range cases {
		out, err := withPlayers([]byte(in), 5, 2)
		if err != nil {
			t.Fatal(err)
		}
		var got, wanted any
		json.Unmarshal(out, &got)
		json.Unmarshal([]byte(want), &wanted)
		if jsonText(t, got) != jsonText(t, wanted) {
			t.Errorf("%s: %s, want %s", in, out, want)
		}
	}
}
