package relay

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

func TestConnectionsPerAddressLimit(t *testing.T) {
	testutil.CheckGoroutines(t)
	srv, addr := startLimitedProxy(t, WS)
	first := dialClient(t, WS, addr)
	defer first.Close()
	exchange(t, first, "h", 10) // the session is up and counted

	var refused *ws.HandshakeError
	if _, err := dialWS(addr); !errors.As(err, &refused) || refused.StatusCode != http.StatusTooManyRequests {
		t.Errorf("second WebSocket client from the same address: %v, want HTTP 429", err)
	}
	waitForMetric(t, srv, "moonbridge_connections_refused_total", map[string]string{"reason": refusedPerAddr}, 1)
	first.Close()
	// Once the first session ended, its slot is free again.
	deadline := time.Now().Add(10 * time.Second)
	for {
		second, err := dialWS(addr)
		if err == nil {
			second.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the address slot was not released: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConnectionsPerAddressLimitMinecraft(t *testing.T) {
	testutil.CheckGoroutines(t)
	srv, addr := startLimitedProxy(t, Minecraft)
	first := dialClient(t, Minecraft, addr)
	defer first.Close()
	exchange(t, first, "h", 10)

	second := dialClient(t, Minecraft, addr)
	defer second.Close()
	if err := firstRead(second); err != io.EOF {
		t.Errorf("second Minecraft client from the same address: read %v, want EOF (refused)", err)
	}
	waitForMetric(t, srv, "moonbridge_connections_refused_total", map[string]string{"reason": refusedPerAddr}, 1)
	exchange(t, first, "", 10) // the first session is undisturbed
}

func dialWS(addr string) (*ws.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return ws.Dial(ctx, ws.DialConfig{URL: "ws://" + addr + "/mc"})
}

func TestTotalConnectionLimit(t *testing.T) {
	backend := startBackend(t, false)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Limits.MaxConnections = 1
	}, Minecraft)
	first := dialClient(t, Minecraft, addr)
	defer first.Close()
	exchange(t, first, "h", 10)
	second, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if err := firstRead(second); err != io.EOF {
		t.Errorf("over the total limit: read %v, want EOF (closed)", err)
	}
	exchange(t, first, "", 1000) // the first session is undisturbed: bytes still go both ways
}

func TestHalfCloseAndAbruptReset(t *testing.T) {
	testutil.CheckGoroutines(t)
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, Minecraft)

	// Half-close: the client stops sending and still receives everything the backend echoes.
	conn := dialClient(t, Minecraft, addr).(*net.TCPConn)
	conn.Write(handshakeFrame("h", mc.NextLogin))
	conn.Write([]byte("last words"))
	conn.CloseWrite()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(conn)
	if err != nil || string(got) != "last words" {
		t.Errorf("after half-close got %q, %v", got, err)
	}
	conn.Close()

	// An abrupt reset from the client ends that session only.
	other := dialClient(t, Minecraft, addr)
	defer other.Close()
	exchange(t, other, "h", 1000)
	reset := dialClient(t, Minecraft, addr).(*net.TCPConn)
	exchange(t, reset, "h", 1000) // relaying, so the reset meets a session under way
	reset.SetLinger(0)
	reset.Close()
	waitForMetric(t, srv, "moonbridge_sessions_total", map[string]string{"protocol": "minecraft", "outcome": "client_error"}, 1)
	exchange(t, other, "", 1000) // the other session still carries bytes both ways
}

// TestBackendHalfCloseKeepsClientSending: a backend that finishes sending half-closes; the player
// gets the bytes and EOF, and what it sends afterwards still reaches the backend.
func TestBackendHalfCloseKeepsClientSending(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	received := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		if _, err := mc.ReadHello(r, 0); err != nil {
			return
		}
		c.Write([]byte("bye"))
		c.(*net.TCPConn).CloseWrite()
		rest, _ := io.ReadAll(r)
		received <- string(rest)
	}()
	_, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(ln.Addr().String()) }, Minecraft)
	conn := dialClient(t, Minecraft, addr).(*net.TCPConn)
	defer conn.Close()
	conn.Write(handshakeFrame("h", mc.NextLogin))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(conn)
	if err != nil || string(got) != "bye" {
		t.Fatalf("player read %q, %v; want bye then EOF", got, err)
	}
	if _, err := conn.Write([]byte("still here")); err != nil {
		t.Fatalf("writing after the backend half-closed: %v", err)
	}
	conn.CloseWrite()
	select {
	case rest := <-received:
		if rest != "still here" {
			t.Errorf("backend received %q after its half-close, want %q", rest, "still here")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the backend never saw the player's bytes or EOF")
	}
}
