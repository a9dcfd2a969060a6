package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// A game that connects and sends nothing (mineflayer's login connection while its version
// check runs) is closed after HelloTimeout without a byte and without a dial; the session's
// log line says what happened and which setting waits longer. One that sent part of its
// handshake is told apart.
func TestHelloWaitClosesASilentGame(t *testing.T) {
	const wait = 200 * time.Millisecond
	for _, tc := range []struct {
		name string
		sent []byte
		want string // the close reason starts with it
	}{
		{"nothing", nil, "the game connected but sent nothing for 200ms, so the bridge closed the connection; a game that waits longer before it logs in needs a longer hello wait (--hello-wait, client.hello_wait)"},
		{"part of a handshake", handshake(mc.NextLogin)[:3], "the game sent 3 bytes but not its whole first packet within 200ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log testutil.SyncBuffer
			b, err := New(Config{Listen: "127.0.0.1:0", Remote: ws.DialConfig{URL: "ws://127.0.0.1:1/mc"}, HelloTimeout: wait, Logger: zerolog.New(&log)})
			if err != nil {
				t.Fatal(err)
			}
			b.dial = func(context.Context, ws.DialConfig) (*ws.Conn, error) {
				t.Error("the bridge dialed for a game that sent no handshake")
				return nil, errors.New("no dial")
			}
			if err := b.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			game := dialGame(t, b)
			if _, err := game.Write(tc.sent); err != nil {
				t.Fatal(err)
			}
			started := time.Now()
			got, err := io.ReadAll(game)
			if err != nil || len(got) != 0 {
				t.Fatalf("the game read %q, %v; want the connection closed without a byte", got, err)
			}
			if waited := time.Since(started); waited < wait/2 {
				t.Errorf("closed after %s, before the hello wait of %s", waited, wait)
			}
			line := sessionEnded(t, &log)
			if !strings.HasPrefix(line.CloseReason, tc.want) {
				t.Errorf("close reason %q, want it to start with %q", line.CloseReason, tc.want)
			}
		})
	}
}

// The close reason is a *HelloTimeoutError only for a timeout; it is still an *mc.HelloError.
func TestHelloFailureKinds(t *testing.T) {
	var timeoutErr *HelloTimeoutError
	err := helloFailure(&timeoutError{}, 0, time.Second)
	if !errors.As(err, &timeoutErr) || timeoutErr.Wait != time.Second || !errors.As(err, new(*mc.HelloError)) {
		t.Errorf("timeout: %#v, want a *HelloTimeoutError wrapping an *mc.HelloError", err)
	}
	err = helloFailure(io.ErrUnexpectedEOF, 4, time.Second)
	if errors.As(err, &timeoutErr) || !errors.As(err, new(*mc.HelloError)) || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("EOF: %#v, want an *mc.HelloError only", err)
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// endLine is the fields of a "session ended" log line the tests read.
type endLine struct {
	Message     string `json:"message"`
	CloseReason string `json:"close_reason"`
}

// sessionEnded waits for the first "session ended" line in log.
func sessionEnded(t *testing.T, log *testutil.SyncBuffer) endLine {
	t.Helper()
	var found endLine
	testutil.WaitFor(t, "the session's log line", func() bool {
		for raw := range strings.Lines(log.String()) {
			if json.Unmarshal([]byte(raw), &found) == nil && found.Message == "session ended" {
				return true
			}
		}
		return false
	})
	return found
}
