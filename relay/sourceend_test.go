package relay

import (
	"errors"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/pipe"
)

// A player's FIN and then its reset (a game closing with the backend's bytes unread): the
// backend-to-player pump's write fails before the player-to-backend pump has read the FIN that
// came first. The player has left all the same: the backend is drained (closed with a FIN
// once it closes too) and the session ends cleanly, whichever pump the scheduler ran first.
func TestAWriteThatFailsBeforeTheSinksEndIsReadWaitsForIt(t *testing.T) {
	for _, c := range []struct {
		name       string
		writeFails error // the backend-to-player pump's write
		clientEnd  error // how the player-to-backend pump ends, after the other one's write failed
		wantClean  bool
	}{
		{"the player's FIN came first", syscall.EPIPE, io.EOF, true},
		{"the player reset without a FIN", syscall.EPIPE, syscall.ECONNRESET, false},
		// The write took the reset's error, so the read finds the socket shut: EOF.
		{"the write saw a reset without a FIN", syscall.ECONNRESET, io.EOF, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &session{}
			clientRead, backendRead := newSourceEnd(), newSourceEnd()
			drained := make(chan struct{}, 1)
			up := direction{source: "client", sink: "backend", read: clientRead, sinkRead: backendRead,
				halfClose: func() {}, drain: func() {}}
			down := direction{source: "backend", sink: "client", read: backendRead, sinkRead: clientRead,
				halfClose: func() {}, drain: func() { drained <- struct{}{} }}
			go func() {
				time.Sleep(50 * time.Millisecond) // the player-to-backend pump runs late
				s.finish(c.clientEnd, up)
			}()
			s.finish(&pipe.WriteError{Err: c.writeFails}, down)
			reason := s.endReason()
			if c.wantClean {
				if reason != nil || len(drained) != 1 {
					t.Errorf("the session ended with %v, the backend drained: %v; want a clean end and a drain", reason, len(drained) == 1)
				}
				return
			}
			var side *pipe.SideError
			if !errors.As(reason, &side) || side.Side != "client" || len(drained) != 0 {
				t.Errorf("the session ended with %v, the backend drained: %v; want the client's write error and no drain", reason, len(drained) == 1)
			}
		})
	}
}
