package relay

import (
	"bufio"
	"crypto/tls"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// Issue 13, defect 5: the handshake timeout restarted after the WebSocket upgrade, so a client
// could take the upgrade's time and then the whole timeout again. It counts from accept.
// Timings are loose: the client takes three quarters of the timeout for its upgrade, so the old
// behaviour closes it at 1.75 timeouts from accept, and the bound is 1.5.
func TestHandshakeTimeoutCountsFromAccept(t *testing.T) {
	for _, tc := range []struct {
		transport Protocol
		provider  string
	}{{WS, "go"}, {WSS, "go"}, {WSS, "boringssl"}} {
		transport := tc.transport
		t.Run(string(transport)+" "+tc.provider, func(t *testing.T) {
			t.Parallel()
			const timeout = 2 * time.Second
			_, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(testutil.ClosedPort(t))
				c.Limits.HandshakeTimeout = timeout
				c.TLS = tlsServer(t, tc.provider)
			}, transport)
			accepted := time.Now()
			var conn net.Conn = dialFrom(t, "127.0.0.1", addr)
			if transport == WSS {
				tlsConn := tls.Client(conn, &tls.Config{InsecureSkipVerify: true})
				if err := tlsConn.Handshake(); err != nil {
					t.Fatal(err)
				}
				conn = tlsConn
			}
			// A slow client, still within the timeout: three quarters of it from accept, the TLS
			// handshake included (on a busy machine it alone can take a good part of it).
			time.Sleep(time.Until(accepted.Add(timeout * 3 / 4)))
			upgrade(t, conn)
			// The client never sends its Minecraft handshake.
			if !closedWithin(conn, 3*timeout) {
				t.Fatal("the proxy did not close a client that never sent its handshake")
			}
			if took := time.Since(accepted); took > timeout*3/2 {
				t.Errorf("closed %v after accept; want about %v (counted from accept, not from the upgrade)", took, timeout)
			}
		})
	}
}

// upgrade sends a WebSocket upgrade request on conn and checks the 101 answer.
func upgrade(t *testing.T, conn net.Conn) {
	t.Helper()
	conn.Write([]byte("GET /mc HTTP/1.1\r\nHost: play.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
}
