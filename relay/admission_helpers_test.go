package relay

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// dialFrom opens a TCP connection to addr from the loopback address from (127.0.0.0/8 is all
// loopback on Linux), so a test can be several clients.
func dialFrom(t *testing.T, from, addr string) *net.TCPConn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn.(*net.TCPConn)
}

// closedWithin reports whether the proxy closes conn (a read ends in EOF or a reset, after any
// bytes it was sent) within d; false when the read times out.
func closedWithin(conn net.Conn, d time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 512)
	for {
		if _, err := conn.Read(buf); err != nil {
			var ne net.Error
			return !(errors.As(err, &ne) && ne.Timeout())
		}
	}
}

// askStatus asks conn for the server-list entry and returns the status JSON.
func askStatus(t *testing.T, conn net.Conn) string {
	t.Helper()
	conn.Write(handshakeFrame("h", mc.NextStatus))
	conn.Write([]byte{0x01, 0x00}) // status request
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	body, err := readFrameFrom(bufio.NewReader(conn))
	if err != nil {
		t.Fatalf("status ping: %v", err)
	}
	return string(body)
}

// logLines collects a Server's log lines for tests that check what was logged.
type logLines struct{ testutil.SyncBuffer }

// count is how many lines contain every one of parts.
func (l *logLines) count(parts ...string) int {
	n := 0
next:
	for _, line := range strings.Split(l.String(), "\n") {
		for _, p := range parts {
			if !strings.Contains(line, p) {
				continue next
			}
		}
		n++
	}
	return n
}

// captureLog sends the server's log to t and to lines, at info level as in production.
func captureLog(t *testing.T, c *Config) *logLines {
	lines := &logLines{}
	c.Logger = zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), lines)).Level(zerolog.InfoLevel)
	return lines
}
