package relay

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc"
)

// Issue 26: a player leaving normally over ws or wss (its WebSocket close) while the backend
// still sent ended as "client: seal: ws: connection closed" or "client: write: broken pipe",
// counted as client_error, and the backend got a reset. After the player's close (or its
// socket's close, for raw Minecraft) what the backend sends is dropped, the session ends as the
// player closing it, and the backend is closed with a FIN once it has closed its side: its
// reads end in EOF and its writes after it never fail. On each data path (TestMain), each
// transport and each TLS provider (wss over BoringSSL runs on the event loops, over crypto/tls
// on goroutines).
func TestPlayerLeavesWhileTheBackendSends(t *testing.T) {
	for _, c := range []struct {
		transport Protocol
		provider  string
	}{{Minecraft, "go"}, {WS, "go"}, {WSS, "go"}, {WSS, "boringssl"}} {
		t.Run(string(c.transport)+"_"+c.provider, func(t *testing.T) {
			backend := startChattyBackend(t)
			var lines *logLines
			srv, addr := startProxy(t, func(cfg *Config) {
				cfg.Routes = routeTo(backend.addr)
				cfg.TLS = tlsServer(t, c.provider)
				lines = captureLog(t, cfg)
			}, c.transport)
			leave(t, c.transport, addr)
			var end chattyEnd
			select {
			case end = <-backend.ends:
			case <-time.After(10 * time.Second):
				t.Fatal("the backend's connection did not end within 10 s")
			}
			if end.read != nil || end.write != nil {
				t.Errorf("the backend's read ended with %v (want EOF), a write failed with %v (want none)", end.read, end.write)
			}
			testutil.WaitFor(t, "the end line", func() bool { return lines.count("session ended") == 1 })
			if lines.count(`"close_reason":"client closed the connection"`) != 1 {
				t.Errorf("the end line does not say the player closed the connection:\n%s", lines.String())
			}
			labels := map[string]string{"protocol": string(c.transport), "outcome": "closed"}
			waitForMetric(t, srv, "moonbridge_sessions_total", labels, 1)
			labels["outcome"] = "client_error"
			if n, _ := metricValue(t, srv, "moonbridge_sessions_total", labels); n != 0 {
				t.Errorf("%v sessions counted as client_error, want 0", n)
			}
		})
	}
}

// leave plays a player that logs in, reads what the backend sends for a moment, and leaves as a
// game does: over ws and wss with a close frame, waiting for the answer (gorilla/websocket, an
// independent client); over raw Minecraft with a FIN and then closing the socket with the
// backend's bytes unread.
func leave(t *testing.T, transport Protocol, addr string) {
	t.Helper()
	if transport == Minecraft {
		conn := dialClient(t, transport, addr)
		conn.Write(handshakeFrame("h", mc.NextLogin))
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(conn, make([]byte, 4<<10)); err != nil {
			t.Fatal(err)
		}
		// A FIN, then, a moment later, the close with the backend's bytes unread (a reset). A
		// reset alone would say nothing of a clean end: a crashed game sends the same.
		conn.(*net.TCPConn).CloseWrite()
		time.Sleep(50 * time.Millisecond)
		conn.Close()
		return
	}
	conn := gorillaDial(t, string(transport), addr)
	conn.WriteMessage(websocket.BinaryMessage, handshakeFrame("h", mc.NextLogin))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for got := 0; got < 4<<10; {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		got += len(msg)
	}
	bye := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	if err := conn.WriteControl(websocket.CloseMessage, bye, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if ce, err := testutil.ReadUntilClose(conn, 10*time.Second); ce == nil || ce.Code != websocket.CloseNormalClosure {
		t.Errorf("the answer to the close: %v (%v), want a close frame 1000", ce, err)
	}
}

// chattyBackend is a Minecraft server that sends all the time (chunks, keepalives) and, once
// its player's stream ends, sends its last packets and closes, as a server does.
type chattyBackend struct {
	addr string
	ends chan chattyEnd
}

// chattyEnd is how one connection of a chattyBackend ended: its read's error (nil: EOF) and
// the first write that failed.
type chattyEnd struct{ read, write error }

func startChattyBackend(t *testing.T) *chattyBackend {
	t.Helper()
	b := &chattyBackend{ends: make(chan chattyEnd, 4)}
	b.addr = testutil.Serve(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		if _, err := mc.ReadHello(r, 0); err != nil {
			return
		}
		read := make(chan error, 1)
		go func() { _, err := io.Copy(io.Discard, r); read <- err }()
		end := chattyEnd{write: sendUntil(c, read)}
		end.read = <-read
		for range 3 { // the last packets, after the player's end came: a kick message, a save
			time.Sleep(20 * time.Millisecond)
			if _, err := c.Write(make([]byte, 512)); err != nil && end.write == nil {
				end.write = err
			}
		}
		c.Close()
		b.ends <- end
	}).Addr().String()
	return b
}

// sendUntil writes 1 KiB every 2 ms until the read ends, which it puts back; the first error.
func sendUntil(c net.Conn, read chan error) error {
	chunk := make([]byte, 1<<10)
	for {
		select {
		case err := <-read:
			read <- err
			return nil
		case <-time.After(2 * time.Millisecond):
		}
		if _, err := c.Write(chunk); err != nil {
			return err
		}
	}
}

// TestDrainAfterThePlayerLeftIsBounded: a backend that never closes after the player left (and
// keeps sending) holds the session for the drain bound only; the session still ends as the
// player closing it.
func TestDrainAfterThePlayerLeftIsBounded(t *testing.T) {
	endless := testutil.Serve(t, func(c net.Conn) {
		if _, err := mc.ReadHello(bufio.NewReader(c), 0); err != nil {
			return
		}
		for chunk := make([]byte, 1<<10); ; time.Sleep(2 * time.Millisecond) {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	}).Addr().String()
	var lines *logLines
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(endless)
		lines = captureLog(t, c)
	}, WS)
	left := time.Now()
	leave(t, WS, addr)
	testutil.WaitFor(t, "the end line", func() bool { return lines.count("session ended") == 1 })
	if took := time.Since(left); took < loop.DefaultDrain/2 || took > 3*loop.DefaultDrain {
		t.Errorf("the session ended %v after the player left, want about the drain bound %v", took, loop.DefaultDrain)
	}
	if lines.count(`"close_reason":"client closed the connection"`) != 1 {
		t.Errorf("the end line does not say the player closed the connection:\n%s", lines.String())
	}
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "ws", "outcome": "closed"}, 1)
}
