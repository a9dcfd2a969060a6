package relay

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// sendingBackend accepts one session, reads its handshake, sends data and closes: a server
// that had more to say when the proxy was asked to stop.
func sendingBackend(t *testing.T, data []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		if _, err := mc.ReadHello(bufio.NewReader(conn), 0); err == nil {
			conn.Write(data)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// drainInBackground starts srv.Drain with timeout and returns its result's channel once
// health says not ready.
func drainInBackground(t *testing.T, srv *Server, timeout time.Duration) <-chan DrainResult {
	t.Helper()
	result := make(chan DrainResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		result <- srv.Drain(ctx)
	}()
	testutil.WaitFor(t, "health to turn not ready after the drain began", func() bool { return !srv.Health().Ready })
	return result
}

// Issue 13, defect 3: SIGTERM closed every session at once, and bytes the backend had sent
// never reached the player. A session that ends within the drain timeout ends byte-exact, and
// the server is not ready from the start of the drain while still live.
func TestDrainLetsSessionsFinish(t *testing.T) {
	for _, protocol := range []Protocol{Minecraft, WS, WSS} {
		t.Run(string(protocol), func(t *testing.T) {
			data := make([]byte, 16<<20+4099) // more than the sockets on the way hold
			rand.Read(data)
			backend := sendingBackend(t, data)
			srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend) }, protocol)
			conn := dialClient(t, protocol, addr)
			defer conn.Close()
			conn.Write(handshakeFrame("localhost", mc.NextLogin))
			got := make([]byte, 1)
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(conn, got); err != nil {
				t.Fatal(err)
			}
			result := drainInBackground(t, srv, time.Minute)
			if h := srv.Health(); !h.Live || h.Reason == "" {
				t.Errorf("health during the drain: %+v, want live, not ready, with a reason", h)
			}
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			rest, err := io.ReadAll(conn)
			got = append(got, rest...)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("the player got %d of %d bytes (%v), want them all, then the end", len(got), len(data), err)
			}
			conn.Close() // the player leaves too: the session has ended
			if r := <-result; r != (DrainResult{Ended: 1}) {
				t.Errorf("drain result %+v, want one session ended by itself", r)
			}
		})
	}
}

// A session still open at the drain's deadline is closed with reason shutdown; a WebSocket
// player hears 1001 (going away).
func TestDrainClosesSessionsAtDeadline(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, WS)
	conn, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/mc", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.WriteMessage(websocket.BinaryMessage, append(handshakeFrame("localhost", mc.NextLogin), "hi"...))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, echo, err := conn.ReadMessage(); err != nil || string(echo) != "hi" {
		t.Fatalf("echo %q, %v", echo, err)
	}
	r := <-drainInBackground(t, srv, 200*time.Millisecond)
	if r != (DrainResult{Closed: 1}) {
		t.Errorf("drain result %+v, want one session closed at the deadline", r)
	}
	_, _, err = conn.ReadMessage()
	var closeErr *websocket.CloseError
	if !errors.As(err, &closeErr) || closeErr.Code != websocket.CloseGoingAway {
		t.Errorf("the player's read after the drain: %v, want a 1001 close", err)
	}
	if n, _ := metricValue(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "ws", "outcome": "shutdown"}); n != 1 {
		t.Errorf("sessions ended with outcome shutdown: %v, want 1", n)
	}
}

// A server-list ping on a connection accepted before the listeners closed gets the restarting
// MOTD instead of going to the backend.
func TestDrainAnswersPingsWithRestartingMOTD(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.RestartingMOTD = "back in a minute"
	}, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	waitForMetric(t, srv, "moonbridge_sessions_active", map[string]string{"protocol": "minecraft"}, 1)
	result := drainInBackground(t, srv, time.Minute)
	conn.Write(append(handshakeFrame("localhost", mc.NextStatus), 1, 0))
	var got []byte
	buf := make([]byte, 4096)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for !strings.Contains(string(got), "back in a minute") {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("a ping during the drain got %q (%v), want the restarting MOTD", got, err)
		}
	}
	conn.Close()
	if r := <-result; r != (DrainResult{Ended: 1}) {
		t.Errorf("drain result %+v, want the pinging session ended by itself", r)
	}
}
