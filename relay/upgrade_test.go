package relay

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// newHolder accepts on a copy of ln's socket, as the new process of an upgrade does, and
// answers every connection with "new".
func newHolder(t *testing.T, ln net.Listener) {
	t.Helper()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	other, err := net.FileListener(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := other.Accept()
			if err != nil {
				return
			}
			conn.Write([]byte("new"))
			conn.Close()
		}
	}()
	t.Cleanup(func() { other.Close(); <-done })
}

// After HandOver the server accepts no more, yet the socket it shared stays open for its new
// holder: not one connection is refused. The session it had runs on, a Reload is refused, and
// the session's end counts in the drain that follows.
func TestHandOverLeavesTheSocketToItsNewHolder(t *testing.T) {
	backend := startBackend(t, false)
	var bound net.Listener
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Listen = func(addr string) (net.Listener, error) {
			ln, err := net.Listen("tcp", addr)
			bound = ln
			return ln, err
		}
	}, Minecraft, WS) // two protocols: a connection is sniffed before it is a session
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	conn.Write(handshakeFrame("localhost", mc.NextLogin))
	echo(t, conn, "before")
	silent, err := net.Dial("tcp", addr) // accepted here, says nothing yet: not a session
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	testutil.WaitFor(t, "the silent connection to be accepted", func() bool { return srv.openConnections() == 2 })
	newHolder(t, bound)

	if stay := srv.HandOver(); stay != 1 {
		t.Errorf("HandOver: %d sessions stay, want 1", stay)
	}
	if h := srv.Health(); h.Ready || !strings.Contains(h.Reason, "handed over") {
		t.Errorf("health after the hand-over: %+v", h)
	}
	if _, err := srv.Reload(Config{Listeners: []Listener{{Addr: "127.0.0.1:0", Protocols: []Protocol{Minecraft, WS}}}, Routes: routeTo(backend.addr()), Fallback: DefaultFallback()}); err == nil || !strings.Contains(err.Error(), "handed") {
		t.Errorf("Reload after the hand-over: %v, want it refused", err)
	}
	for i := range 20 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d after the hand-over: %v", i, err)
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, err := io.ReadAll(c)
		c.Close()
		if string(got) != "new" {
			t.Fatalf("connection %d after the hand-over got %q (%v), want the new holder's answer", i, got, err)
		}
	}
	echo(t, conn, "after")
	conn.Close()
	short, cancelShort := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancelShort()
	if open := srv.WaitForSessions(short); open != 1 {
		t.Errorf("WaitForSessions with a connection accepted before the hand-over still open: %d, want 1", open)
	}
	silent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if open := srv.WaitForSessions(ctx); open != 0 {
		t.Fatalf("%d sessions still open after the player left", open)
	}
	if r := srv.Drain(ctx); r != (DrainResult{Ended: 1}) {
		t.Errorf("drain after the hand-over: %+v, want the session counted as ended by itself", r)
	}
}

func echo(t *testing.T, conn net.Conn, text string) {
	t.Helper()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(text))
	if _, err := io.ReadFull(conn, got); err != nil || string(got) != text {
		t.Fatalf("echo of %q: %q, %v", text, got, err)
	}
}
