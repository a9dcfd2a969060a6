package relay

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern/playtest"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
)

// workMode is a maintenance that lets Steve in and tells the others to come back.
func workMode(t *testing.T) *MaintenanceMode {
	t.Helper()
	allow, err := NewAllowlist([]string{"steve", "069a79f4-44e9-4726-a5be-fca90e38aaf5"})
	if err != nil {
		t.Fatal(err)
	}
	return &MaintenanceMode{MOTD: []byte(`{"text":"Down for work","color":"gold"}`), Favicon: "data:image/png;base64,CCCC",
		VersionName: "Maintenance", Message: []byte(`{"text":"Back at ","extra":["18:00"]}`), Allow: allow}
}

// A route under maintenance answers the server list with the owner's entry and asks no
// backend; another route answers as before.
func TestMaintenanceAnswersTheServerListItself(t *testing.T) {
	backend := startLiveStatusServer(t, paperStatus)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.ln.Addr().String())
		c.Routes[0].Name, c.Routes[0].MaxPlayers = "lobby", 40
		c.Routes = append(c.Routes, Route{Name: "creative", Hosts: []string{"creative.example"}, Backends: c.Routes[0].Backends, StatusCache: time.Hour})
	}, Minecraft)
	srv.SetMaintenance(Maintenance{Routes: map[string]*MaintenanceMode{"lobby": workMode(t)}})
	status := pingStatus(t, Minecraft, addr, "play.example.net")
	want := map[string]any{
		"description": map[string]any{"text": "Down for work", "color": "gold"},
		"favicon":     "data:image/png;base64,CCCC",
		"version":     map[string]any{"name": "Maintenance", "protocol": -1},
		"players":     map[string]any{"max": 40, "online": 0},
	}
	if got := jsonText(t, status); got != jsonText(t, want) {
		t.Errorf("under maintenance the route answered %s, want %s", got, jsonText(t, want))
	}
	if n := backend.count(); n != 0 {
		t.Errorf("the backend was asked %d times, want none while the route is under maintenance", n)
	}
	if got := jsonText(t, pingStatus(t, Minecraft, addr, "creative.example")); got != jsonText(t, mustJSON(t, paperStatus)) {
		t.Errorf("the other route answered %s, want the server's answer", got)
	}
}

// A login not on the allowlist reads the owner's message in a login Disconnect; one on it
// (by name, whatever its case) plays; a session already playing is not touched.
func TestMaintenanceTurnsAwayPlayersNotOnTheAllowlist(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(back.Addr) }, Minecraft)
	playing := joinThrough(t, Minecraft, addr, nil)
	srv.SetMaintenance(Maintenance{All: workMode(t)})
	_, err := playtest.Join(dialClient(t, Minecraft, addr), "localhost", 25565, "Alex", 2, nil)
	var de *playtest.DisconnectError
	if !errors.As(err, &de) || de.Reason != `{"text":"Back at ","extra":["18:00"]}` {
		t.Fatalf("Alex's login: %v, want the maintenance message", err)
	}
	if n := metricCount(t, srv, "moonbridge_connections_refused_total", map[string]string{"reason": refusedMaintenance}); n != 1 {
		t.Errorf("refusals for maintenance %v, want 1", n)
	}
	if _, err := playtest.Join(dialClient(t, Minecraft, addr), "localhost", 25565, "STEVE", 2, nil); err != nil {
		t.Errorf("Steve, on the allowlist: %v", err)
	}
	if err := playing.Echo([]byte("still here")); err != nil {
		t.Errorf("a player in play before the maintenance: %v", err)
	}
}

// A UUID on the allowlist counts only where the session server vouched for it: a client's own
// Login Start names the UUID it likes.
func TestMaintenanceBelievesUUIDsOnlyFromTheSessionServer(t *testing.T) {
	mode := workMode(t)
	uuid, _ := parseUUIDText("069a79f444e94726a5befca90e38aaf5")
	if mode.Allow.allows("Notch", uuid, false) {
		t.Error("an unverified UUID let the player in")
	}
	if !mode.Allow.allows("Notch", uuid, true) {
		t.Error("a verified UUID on the allowlist was turned away")
	}
}

// Start and end times bound a maintenance: before its start and after its end the route is
// open; a route's own entry, on or off, decides for it over every route's.
func TestMaintenanceTimes(t *testing.T) {
	now := time.Now()
	future, past := workMode(t), workMode(t)
	future.Start = now.Add(time.Hour)
	past.Start, past.End = now.Add(-2*time.Hour), now.Add(-time.Hour)
	running := workMode(t)
	running.End = now.Add(time.Hour)
	m := &Maintenance{All: running, Routes: map[string]*MaintenanceMode{"lobby": future, "pvp": running, "survival": past, "open": nil}}
	if got := m.For("lobby", now); got != nil {
		t.Error("a maintenance that starts in an hour applies now")
	}
	if got := m.For("lobby", now.Add(2*time.Hour)); got != future {
		t.Error("a maintenance past its start does not apply")
	}
	if got := m.For("survival", now); got != nil {
		t.Error("a maintenance past its end applies")
	}
	if got := m.For("pvp", now); got != running {
		t.Error("a running maintenance does not apply")
	}
	if got := m.For("open", now); got != nil {
		t.Error("a route whose own entry is off is under every route's maintenance")
	}
	if got := m.For("creative", now); got != running {
		t.Error("a route without an entry of its own is not under every route's maintenance")
	}
	var none *Maintenance
	if none.For("lobby", now) != nil {
		t.Error("no maintenance applies")
	}
}

// Allowlists take names and UUIDs, bounded, and refuse anything else.
func TestNewAllowlist(t *testing.T) {
	if _, err := NewAllowlist([]string{"Steve", ".BedrockName", "069a79f444e94726a5befca90e38aaf5"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"two words"}, {""}, {"seventeen_letters"}, {"..x"}, {"069a79f4-44e9-4726-a5be-fca90e38aaf"}, {"§cName"},
		slices.Repeat([]string{"a"}, MaxAllowlist+1),
	} {
		if _, err := NewAllowlist(bad); !errors.Is(err, ErrAllowlist) {
			t.Errorf("%.30q: %v, want ErrAllowlist", bad, err)
		}
	}
}

// Asked to, a maintenance kicks the players in play who are not on its allowlist: a 1.21
// player reads the message in a Disconnect, a 1.20.4 one, whose stream takes no packet of the
// proxy's, is closed; an allowed player stays.
func TestMaintenanceKicksPlayersWhenAsked(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	echo := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.Routes[0].Name = "lobby"
		c.Routes = append(c.Routes, Route{Name: "old", Hosts: []string{"old.example"}, Backends: routeTo(echo.addr())[0].Backends})
	}, Minecraft)
	cl := joinThrough(t, Minecraft, addr, nil)
	old := dialClient(t, Minecraft, addr)
	defer old.Close()
	hs := mc.Handshake{Protocol: 765, Host: "old.example", Port: 25565, NextState: mc.NextLogin}
	old.Write(hs.AppendFrame(nil, "old.example"))
	old.Write([]byte("ping"))
	old.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(old, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "the player's session to be movable", func() bool {
		return slices.ContainsFunc(srv.sessionList(), func(s *session) bool { return s.moves.Load() != nil })
	})
	mode := workMode(t)
	mode.Allow, _ = NewAllowlist([]string{"Alex"})
	srv.SetMaintenance(Maintenance{All: mode})
	if k := srv.KickForMaintenance(""); k.Kicked != 2 || k.Told != 1 || k.Allowed != 0 {
		t.Errorf("kicks %+v, want two kicked, one of them told", k)
	}
	_, err := awaitTransfer(t, cl)
	var de *playtest.DisconnectError
	if !errors.As(err, &de) || de.Reason != "Back at 18:00" {
		t.Errorf("the 1.21 player saw %v, want a Disconnect with the message", err)
	}
	old.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(old); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Errorf("the 1.20.4 player: %v, want its connection closed", err)
	}
}

// On an auth online route the allowlist is checked after the session server: a UUID on it lets
// its player in, and a player not on it reads the message through the login's cipher.
func TestMaintenanceOnAnOnlineRoute(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardBungeeCord}
	setup := startLoginProxy(t, true, &backend, "go", Minecraft)
	mode := workMode(t)
	mode.Allow, _ = NewAllowlist([]string{authfake.Profile("Alex").ID.String()})
	setup.srv.SetMaintenance(Maintenance{All: mode})
	alex := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions})
	backendLogin(t, &backend)
	readLoginSuccess(t, alex, false)

	steve := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Steve", Protocol: 767, Sessions: setup.sessions})
	body, err := steve.ReadFrame()
	if id, fields, _ := mc.PacketID(body); err != nil || id != mc.LoginDisconnectID || !bytes.Contains(fields, []byte(`"Back at "`)) {
		t.Fatalf("Steve read %q %v, want the maintenance message", body, err)
	}
	select {
	case l := <-backend.Got:
		t.Fatalf("a login the maintenance turned away reached the backend: %+v", l)
	default:
	}
}

// A legacy ping (clients before 1.7) of a route under maintenance gets the maintenance's text
// in its own form, without a backend asked.
func TestMaintenanceAnswersLegacyPings(t *testing.T) {
	backend := startLiveStatusServer(t, paperStatus)
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.ln.Addr().String()) }, Minecraft)
	srv.SetMaintenance(Maintenance{All: workMode(t)})
	if got, want := legacyPing(t, addr), "§1\x00127\x00Maintenance\x00Down for work\x000\x000"; got != want {
		t.Errorf("legacy kick %q, want %q", got, want)
	}
	if n := backend.count(); n != 0 {
		t.Errorf("the backend was asked %d times", n)
	}
}

// peekLoginStart reads a Login Start that arrives in one write or byte by byte, into a reader
// that held none of it, as soon as it is there (the client then waits for the answer, which
// must come before the connection's deadline), and leaves every byte in the reader.
func TestPeekLoginStart(t *testing.T) {
	frame := []byte{0, 0, 5, 'S', 't', 'e', 'v', 'e'}
	frame = append(frame, make([]byte, 16)...)
	frame[0] = byte(len(frame) - 1)
	for name, chunk := range map[string]int{"one write": len(frame), "byte by byte": 1} {
		server, client := net.Pipe()
		answered := make(chan error, 1)
		go func() {
			defer client.Close()
			for b := frame; len(b) > 0; b = b[min(chunk, len(b)):] {
				client.Write(b[:min(chunk, len(b))])
			}
			client.SetReadDeadline(time.Now().Add(testutil.WaitBound))
			_, err := client.Read(make([]byte, 1))
			answered <- err
		}()
		server.SetReadDeadline(time.Now().Add(3 * testutil.WaitBound))
		r := bufio.NewReader(server)
		ls, err := peekLoginStart(r, 767)
		server.Write([]byte{1})
		if err := <-answered; err != nil {
			t.Errorf("%s: the client's wait for the answer: %v", name, err)
		}
		if err != nil || ls.Name != "Steve" || r.Buffered() != len(frame) {
			t.Errorf("%s: Login Start %+v, %v, %d bytes left in the reader; want Steve and all %d", name, ls, err, r.Buffered(), len(frame))
		}
		server.Close()
	}
}
