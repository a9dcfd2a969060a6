package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

// A third-party WebSocket client (node's ws, a browser page) that offers subprotocols of its own
// gets the one websocket.subprotocols lists, or with "*" the first it offered, and its bytes
// reach the backend (issue 39: it got a 101 with none selected and gave up).
func TestThirdPartySubprotocols(t *testing.T) {
	backend := fakeBackend(t, func(c net.Conn) { io.Copy(c, c) })
	for _, tc := range []struct{ yaml, want string }{
		{"", ""}, // the default lists none: an offer of chat and binary gets no subprotocol
		{"websocket:\n  subprotocols: [binary]\n", "binary"},
		{"websocket:\n  subprotocols: [\"*\"]\n", "chat"},
	} {
		cfg, err := config.Parse([]byte(tc.yaml), func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatal(err)
		}
		cfg.Listeners = []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.WS}}}
		cfg.Routes = []config.Route{{Hosts: []string{"*"}, Backends: []string{backend}}}
		addr := waitForLog(t, startServe(t, cfg), "Listening on ")["addr"]
		d := websocket.Dialer{Subprotocols: []string{"chat", "binary"}, HandshakeTimeout: 10 * time.Second}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, _, err := d.DialContext(ctx, "ws://"+addr+"/mc", nil)
		cancel()
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if got := c.Subprotocol(); got != tc.want {
			t.Errorf("%q: subprotocol %q selected, want %q", tc.yaml, got, tc.want)
		}
		echoed(t, c, append(statusPing(), "after the hello"...))
		c.Close()
	}
}

// echoed sends msg as one binary message and wants it back from the echoing backend.
func echoed(t *testing.T, c *websocket.Conn, msg []byte) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := c.WriteMessage(websocket.BinaryMessage, msg); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for len(got) < len(msg) {
		_, part, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("reading the echo: %v", err)
		}
		got = append(got, part...)
	}
	if !bytes.Equal(got, msg) {
		t.Errorf("echo %q, want %q", got, msg)
	}
}
