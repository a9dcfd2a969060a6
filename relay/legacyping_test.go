package relay

import (
	"bufio"
	"encoding/binary"
	"io"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// legacyPing sends a 1.4 legacy ping (FE 01) and returns the kick's text.
func legacyPing(t *testing.T, addr string) string {
	t.Helper()
	conn := dialFrom(t, "127.0.0.1", addr)
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write([]byte{0xfe, 0x01})
	r := bufio.NewReader(conn)
	var head [3]byte
	if _, err := io.ReadFull(r, head[:]); err != nil || head[0] != 0xff {
		t.Fatalf("legacy kick starts %x, %v", head, err)
	}
	units := make([]uint16, binary.BigEndian.Uint16(head[1:]))
	if err := binary.Read(r, binary.BigEndian, units); err != nil {
		t.Fatal(err)
	}
	return string(utf16.Decode(units))
}

// Issue 27: a legacy ping got the fallback's "not reachable" while the backend was up. It gets
// the backend's MOTD, players and version now, asked with a modern status ping, and a burst of
// them asks the backend once, also on a route that passes status pings through.
func TestLegacyPingAnsweredWithTheBackendsStatus(t *testing.T) {
	backend := startLiveStatusServer(t, paperStatus)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.ln.Addr().String())
	}, Minecraft, WS)
	want := "§1\x00127\x00Paper 1.21\x00up and running\x003\x0020"
	for range 3 {
		if got := legacyPing(t, addr); got != want {
			t.Fatalf("legacy kick %q, want %q", got, want)
		}
	}
	if n := backend.count(); n != 1 {
		t.Errorf("the backend answered %d status pings for 3 legacy pings within a second, want 1", n)
	}
}

// With no backend up, a legacy ping still gets the fallback's text.
func TestLegacyPingGetsTheFallbackWhenNoBackendAnswers(t *testing.T) {
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(testutil.ClosedPort(t))
	}, Minecraft)
	want := "§1\x000\x00moonbridge\x00§cThe server is not reachable right now\x000\x000"
	if got := legacyPing(t, addr); got != want {
		t.Fatalf("legacy kick %q, want %q", got, want)
	}
}
