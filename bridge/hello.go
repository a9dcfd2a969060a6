package bridge

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/moonbridge/moonbridge/mc"
)

// readHello reads the game's first packet under the deadline run set (Config.HelloTimeout).
// A game that did not send it in time is a *HelloTimeoutError; any other failure is an
// *mc.HelloError. Each hello read is a debug line, the session's start as the game sees it.
func (s *session) readHello(r *bufio.Reader) (mc.Hello, error) {
	hello, err := mc.ReadHello(r, s.b.cfg.MaxHandshake)
	if err != nil {
		return hello, helloFailure(err, r.Buffered(), s.b.cfg.HelloTimeout)
	}
	line := s.log.Debug()
	if hs := hello.Handshake; hello.Legacy == nil {
		line.Str("host", hs.Host).Stringer("next", hs.NextState)
	}
	line.Bool("legacy", hello.Legacy != nil).Msg("game connected")
	return hello, nil
}

// helloFailure is why the first packet could not be read: received is how many of its bytes
// had arrived when the read failed.
//
// A game that sends nothing in time gets no answer, only the close. It has sent nothing, so it
// is still in the handshaking state, in which the server sends no packet at all: the vanilla
// client sends its handshake and Login Start (or the status request) as soon as it connects,
// and never waits here, while node-minecraft-protocol (mineflayer) with its version check
// opens the login connection, pings the server on a second one, and sends the handshake on the
// first only once the ping is answered. A login Disconnect (mc.AppendLoginDisconnect) written
// to such a client would be decoded as a handshaking packet, which does not exist, and fail as
// a decoding error rather than be shown; a closed connection is reported as such. The words
// are in the log line instead, and say which setting waits longer.
func helloFailure(err error, received int, wait time.Duration) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &HelloTimeoutError{Wait: wait, Received: received, Err: &mc.HelloError{Err: err}}
	}
	return &mc.HelloError{Err: err}
}

// HelloTimeoutError is a game connection whose first packet did not arrive within
// Config.HelloTimeout; the bridge closed it without an answer (helloFailure says why).
type HelloTimeoutError struct {
	Wait     time.Duration // Config.HelloTimeout
	Received int           // bytes of the first packet that had arrived; 0 for none
	Err      error         // the *mc.HelloError of the read that timed out
}

func (e *HelloTimeoutError) Error() string {
	if e.Received == 0 {
		return fmt.Sprintf("the game connected but sent nothing for %s, so the bridge closed the connection; "+
			"a game that waits longer before it logs in needs a longer hello wait (--hello-wait, client.hello_wait)", e.Wait)
	}
	return fmt.Sprintf("the game sent %d bytes but not its whole first packet within %s, so the bridge closed the connection", e.Received, e.Wait)
}

func (e *HelloTimeoutError) Unwrap() error { return e.Err }
