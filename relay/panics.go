package relay

import (
	"errors"
	"fmt"
	"net"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/loop"
)

// A panic in one session's work (a bug of the proxy's: a codec, a cipher, a parser) ends that
// session, never the process: on a session's goroutines a deferred recover makes it the
// session's end reason (a *PanicError), on an event loop the loop does (a *loop.PanicError).
// Either way the log gets an error line with the stack, the end line gives the reason, and
// moonbridge_session_panics_total counts it.

var panicsDesc = prometheus.NewDesc("moonbridge_session_panics_total",
	"Sessions that a panic in the proxy's own code ended (a bug: the log has its stack), by where "+
		"the session ran: goroutine or loop. Only that session was closed.", []string{"path"}, nil)

// PanicError is the end reason of a session whose goroutine panicked.
type PanicError struct {
	Value any    // what panic was given
	Stack []byte // the goroutine's stack where it panicked
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// isPanic says whether reason is a panic's, on either data path.
func isPanic(reason error) bool {
	return errors.As(reason, new(*PanicError)) || errors.As(reason, new(*loop.PanicError))
}

// logPanic writes the error line of a panic that ended a session.
func logPanic(log zerolog.Logger, value any, stack []byte) {
	log.Error().Str("panic", fmt.Sprint(value)).Str("stack", string(stack)).
		Msg("a session panicked (a bug): it was closed, the others go on")
}

// panicked ends s with the panic's value (recovered on one of its goroutines): the log line,
// the count, and the end reason, which closes both sides.
func (s *session) panicked(value any) {
	err := &PanicError{Value: value, Stack: debug.Stack()}
	s.srv.panics.Add(1)
	logPanic(s.log, value, err.Stack)
	s.abort(err)
}

// recoverConn is deferred on a connection's goroutine, on the raw socket and again on the
// clientConn once there is one: a panic before the connection became a session (a session's
// goroutines recover their own) closes it, and the clientConn's Close gives back its slots.
func (ln *listener) recoverConn(conn net.Conn) {
	value := recover()
	if value == nil {
		return
	}
	conn.Close()
	ln.srv.panics.Add(1)
	logPanic(ln.log.With().Str("client", conn.RemoteAddr().String()).Logger(), value, debug.Stack())
}
