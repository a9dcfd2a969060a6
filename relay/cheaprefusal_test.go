package relay

import (
	"bufio"
	"bytes"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// malformedHandshake is a handshake frame whose next state is 9: it starts like a hello.
func malformedHandshake() []byte {
	return mc.Handshake{Protocol: 767, Host: "h", Port: 25565, NextState: 9}.AppendFrame(nil, "h")
}

// Issue 27: first bytes that are not Minecraft (nor TLS or HTTP where the listener serves
// them) and malformed handshakes are closed and counted each, without a log line each: one
// line per reason per 10 s, and no session end line.
func TestCheapRefusalsAreCountedWithoutALineEach(t *testing.T) {
	cases := []struct {
		name      string
		protocols []Protocol
		send      []byte
		reason    string
	}{
		{"ssh banner at the sniff", []Protocol{Minecraft, WS}, []byte("SSH-2.0-OpenSSH_9.6\r\n"), refusedGarbage},
		{"TLS where no wss is served", []Protocol{Minecraft, WS}, []byte("\x16\x03\x01\x00\x05hello"), refusedGarbage},
		{"packet id 7 in the session", []Protocol{Minecraft}, []byte{0x02, 0x07, 0x00}, refusedGarbage},
		{"bad next state past the sniff", []Protocol{Minecraft, WS}, malformedHandshake(), refusedMalformed},
		{"bad next state in the session", []Protocol{Minecraft}, malformedHandshake(), refusedMalformed},
	}
	const tries = 12
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var lines *logLines
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(testutil.ClosedPort(t))
				c.Limits.ConnectionBurst = 100
				lines = captureLog(t, c)
			}, tc.protocols...)
			for range tries {
				conn := dialFrom(t, "127.0.0.11", addr)
				conn.Write(tc.send)
				if !closedWithin(conn, 10*time.Second) {
					t.Fatal("the proxy did not close the connection")
				}
			}
			waitForMetric(t, srv, refusedSeries, map[string]string{"reason": tc.reason}, tries)
			if n := lines.count(`"client":"127.0.0.11:`); n != 1 {
				t.Errorf("%d log lines for %d refusals, want 1:\n%s", n, tries, lines.String())
			}
			if n := lines.count(`"reason":"`+tc.reason+`"`, `"level":"info"`); n != 1 {
				t.Errorf("%d info lines with reason %s, want 1", n, tc.reason)
			}
		})
	}
}

// A well-formed hello still goes through a listener that sniffs (no garbage refusal), also
// when it arrives a byte at a time.
func TestSniffTakesAHelloSentByteByByte(t *testing.T) {
	_, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(testutil.ClosedPort(t)) }, Minecraft, WS)
	conn := dialFrom(t, "127.0.0.12", addr)
	frame := handshakeFrame("h", mc.NextStatus)
	for _, b := range frame[:3] {
		conn.Write([]byte{b})
		time.Sleep(20 * time.Millisecond)
	}
	conn.Write(frame[3:])
	conn.Write([]byte{0x01, 0x00})
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := readFrameFrom(bufio.NewReader(conn)); err != nil {
		t.Fatalf("no status answer: %v", err)
	}
}

func TestStartsLikeMinecraftZeroAllocs(t *testing.T) {
	r := bufio.NewReader(bytes.NewReader(handshakeFrame("play.example.net", mc.NextLogin)))
	r.Peek(1)
	if n := testing.AllocsPerRun(100, func() { _ = startsLikeMinecraft(r) }); n != 0 {
		t.Fatalf("%v allocations, want 0", n)
	}
}
