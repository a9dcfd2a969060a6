package relay

import (
	"bufio"
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
	"github.com/moonbridge/moonbridge/relay/bans"
)

// banList is a list holding entries, each checked as the API and the file check them.
func banList(t *testing.T, entries ...bans.Entry) *bans.List {
	t.Helper()
	l := bans.NewList()
	for _, e := range entries {
		b, err := e.Ban(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		l.Add(b)
	}
	return l
}

// loginStartFrame is the Login Start of a 1.21 (767) client named name with uuid.
func loginStartFrame(t *testing.T, name string, uuid [16]byte) []byte {
	t.Helper()
	shape, _, ok := mc.LoginShapeOf(767)
	if !ok {
		t.Fatal("no shape for 767")
	}
	return mc.AppendLoginStart(nil, shape, mc.LoginStart{Name: name, UUID: uuid, HasUUID: true})
}

// readLoginDisconnect reads the one frame a refused login gets and returns its text.
func readLoginDisconnect(t *testing.T, conn net.Conn) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	fr := mc.NewFrameReader(conn, 4096)
	_, body, err := fr.ReadFrame()
	if err != nil {
		t.Fatalf("reading the disconnect: %v", err)
	}
	id, fields, _ := mc.PacketID(body)
	if id != mc.LoginDisconnectID {
		t.Fatalf("read packet %#x, want a Login Disconnect", id)
	}
	return string(fields)
}

// A banned address reads the ban's reason in its login, over each transport, and reaches no
// backend; its server-list ping is answered by the proxy itself; the refusal is counted.
func TestBannedAddressReadsTheReason(t *testing.T) {
	for _, protocol := range []Protocol{Minecraft, WS} {
		t.Run(string(protocol), func(t *testing.T) {
			backend := startBackend(t, false)
			list := banList(t, bans.Entry{Kind: bans.KindAddress, Value: "127.0.0.1", Reason: "flooding the chat"})
			srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()); c.Bans = list }, protocol)
			conn := dialClient(t, protocol, addr)
			defer conn.Close()
			conn.Write(append(handshakeFrame("play.example.net", mc.NextLogin), loginStartFrame(t, "Steve", [16]byte{1})...))
			if got := readLoginDisconnect(t, conn); !strings.Contains(got, "flooding the chat") || !strings.Contains(got, "does not end") {
				t.Errorf("the banned player read %q", got)
			}
			ping := dialClient(t, protocol, addr)
			defer ping.Close()
			ping.Write(append(handshakeFrame("play.example.net", mc.NextStatus), 1, 0))
			ping.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, body, err := mc.NewFrameReader(ping, 1<<16).ReadFrame(); err != nil || !bytes.Contains(body, []byte(DefaultFallback().Status.MOTD)) {
				t.Errorf("the banned address's ping got %q, %v; want the fallback's status", body, err)
			}
			ping.Close() // the fallback's status session would wait for a ping until its deadline
			if n := backend.acceptedCount(t); n != 0 {
				t.Errorf("the backend was dialled %d times for a banned address", n)
			}
			waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": string(protocol), "outcome": "banned"}, 2)
		})
	}
}

// A login the proxy passes through waits for its Login Start when the list bans names: a
// banned name (in any case) is refused before any backend is dialled, also when Login Start
// comes well after the handshake; another name plays on.
func TestBannedNameIsRefusedBeforeTheDial(t *testing.T) {
	backend := startBackend(t, false)
	list := banList(t, bans.Entry{Kind: bans.KindName, Value: "Griefer", Reason: "spawn griefing", Expires: "2099-01-01T00:00:00Z"})
	_, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()); c.Bans = list }, Minecraft)
	banned := dialClient(t, Minecraft, addr)
	defer banned.Close()
	banned.Write(handshakeFrame("play.example.net", mc.NextLogin))
	time.Sleep(50 * time.Millisecond) // Login Start in a read of its own
	banned.Write(loginStartFrame(t, "gRiEfEr", [16]byte{2}))
	if got := readLoginDisconnect(t, banned); !strings.Contains(got, "spawn griefing") || !strings.Contains(got, "2099-01-01 00:00 UTC") {
		t.Errorf("the banned player read %q", got)
	}
	if n := backend.acceptedCount(t); n != 0 {
		t.Fatalf("the backend was dialled %d times for a banned name", n)
	}
	ok := dialClient(t, Minecraft, addr)
	defer ok.Close()
	start := loginStartFrame(t, "Steve", [16]byte{3})
	ok.Write(append(handshakeFrame("play.example.net", mc.NextLogin), start...))
	echo := make([]byte, len(start))
	ok.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := bufio.NewReader(ok).Read(echo); err != nil {
		t.Fatalf("a player on no ban: %v", err)
	}
}

// A Login Start the proxy cannot read, while the list bans names, is refused rather than let
// through unchecked: a banned player cannot slip past by mangling it.
func TestUnreadableLoginStartIsRefusedWhileNamesAreBanned(t *testing.T) {
	backend := startBackend(t, false)
	list := banList(t, bans.Entry{Kind: bans.KindName, Value: "Griefer"})
	_, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()); c.Bans = list }, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	long := mc.AppendFrame(nil, 0, mc.AppendString(nil, strings.Repeat("G", 40))) // a name of 40 characters
	conn.Write(append(handshakeFrame("play.example.net", mc.NextLogin), long...))
	readLoginDisconnect(t, conn)
	if n := backend.acceptedCount(t); n != 0 {
		t.Fatalf("the backend was dialled %d times for an unreadable Login Start", n)
	}
}

// On an auth online route the UUID is the session server's: a banned UUID is refused after
// it, through the login's cipher, and no backend hears of the player.
func TestBannedUUIDOnAnOnlineRoute(t *testing.T) {
	backend := authtest.Backend{Forwarding: auth.ForwardBungeeCord}
	setup := startLoginProxy(t, true, &backend, "go", Minecraft)
	b, _ := bans.Entry{Kind: bans.KindUUID, Value: authfake.Profile("Alex").ID.String(), Reason: "alt of a griefer"}.Ban(time.Now())
	setup.srv.bans.Add(b) // a server made without a list has one of its own, empty
	pc := loginThrough(t, setup, Minecraft, authtest.Player{Name: "Alex", Protocol: 767, Sessions: setup.sessions})
	body, err := pc.ReadFrame()
	if id, fields, _ := mc.PacketID(body); err != nil || id != mc.LoginDisconnectID || !bytes.Contains(fields, []byte("alt of a griefer")) {
		t.Fatalf("the banned player read %q %v, want the ban's disconnect", body, err)
	}
	waitForLines(t, setup.lines, 1, `"answered":"banned"`, `"player_uuid":"`+authfake.Profile("Alex").ID.String())
	select {
	case l := <-backend.Got:
		t.Fatalf("a banned login reached the backend: %+v", l)
	default:
	}
}
