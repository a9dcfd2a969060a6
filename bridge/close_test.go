package bridge

import (
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/ws"
)

// closeSeen is what a server saw of the bridge's closing handshake: before its answer, what a
// read of the bridge's socket met for a while (a timeout: the bridge still waits), and after
// it, what the next read met (EOF: the bridge closed once it had the answer).
type closeSeen struct{ beforeAnswer, afterAnswer error }

// Issue 26: the bridge closed its socket right after its close frame, so the server's answer
// (and anything it still sent) met a closed socket. When the game leaves, the bridge sends its
// close frame, drops what the server still sends, and closes only once the answer came.
func TestGameLeavingWaitsForTheCloseAnswer(t *testing.T) {
	seen := make(chan closeSeen, 1)
	addr := startAnsweringServer(t, seen)
	b := startBridge(t, ws.DialConfig{URL: "ws://" + addr + "/mc"}, nil)
	game := dialGame(t, b)
	if _, err := game.Write(login.AppendRequest(nil, gameHost, 25565, "Alex")); err != nil {
		t.Fatal(err)
	}
	game.Close()
	select {
	case s := <-seen:
		var ne net.Error
		if !errors.As(s.beforeAnswer, &ne) || !ne.Timeout() {
			t.Errorf("before the answer the bridge's socket gave %v, want nothing (a timeout): it must wait", s.beforeAnswer)
		}
		if s.afterAnswer != io.EOF {
			t.Errorf("after the answer the bridge's socket gave %v, want EOF", s.afterAnswer)
		}
	case <-time.After(testTimeout):
		t.Fatal("the server saw no close frame")
	}
}

// startAnsweringServer is a WebSocket server (gorilla/websocket) that, when its client's close
// frame comes, looks at the socket for 300 ms, sends one more message and its answer, then reads
// the socket again; it reports what it saw on seen.
func startAnsweringServer(t *testing.T, seen chan<- closeSeen) string {
	t.Helper()
	return startFakeProxy(t, func(c *websocket.Conn) {
		raw := c.UnderlyingConn()
		c.SetCloseHandler(func(code int, _ string) error {
			var s closeSeen
			raw.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			_, s.beforeAnswer = raw.Read(make([]byte, 1))
			c.WriteMessage(websocket.BinaryMessage, []byte("your inventory, saved"))
			c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(time.Second))
			raw.SetReadDeadline(time.Now().Add(testTimeout))
			_, s.afterAnswer = raw.Read(make([]byte, 1))
			seen <- s
			return nil
		})
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	})
}

// startFakeProxy is a WebSocket server (gorilla/websocket) on 127.0.0.1:0 standing in for
// moonbridge serve: it runs script on each connection, which it closes when script returns.
func startFakeProxy(t *testing.T, script func(*websocket.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(testTimeout))
		script(c)
	})}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); wg.Wait() })
	return ln.Addr().String()
}
