package relay

import (
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// The wait after a temporary accept failure doubles from the first to the last, as net/http's.
const (
	firstAcceptDelay = 5 * time.Millisecond
	maxAcceptDelay   = time.Second
)

// acceptLoop hands every accepted connection to handle until the listener is closed. A
// failure that is not temporary stops this listener for good and turns the server's health red
// (readiness.go): a proxy that lives on without accepting would never be restarted.
// Each accepted connection counts for the memory guard from accept on (handshakes.accepted),
// before its goroutine has run, so that a flood accepted faster than it is handled is bounded
// too.
func (ln *listener) acceptLoop() {
	defer close(ln.accepted)
	hs := ln.srv.mem.handshakes
	err := acceptEach(ln.tcp, ln.log, func(conn net.Conn) {
		hs.accepted(ln.srv.ctx)
		ln.srv.unslotted.Add(1)
		ln.srv.wg.Add(1)
		go func() {
			defer ln.srv.wg.Done()
			defer ln.recoverConn(conn)
			hs.started()
			ln.handle(conn)
		}()
	})
	if err != nil {
		ln.srv.listenerFailed(ln, err)
	}
}

// acceptEach accepts until l is closed (nil) or fails for good (the error). A temporary failure
// (out of descriptors or buffers, a connection aborted before it was accepted) waits and tries
// again. The log gets at most one failure line a second, however failures and successes
// alternate (under a flood at the descriptor limit every other accept fails), each with the
// failures since the line before, and one "accepting again" line at the first success a second
// or more after a failure line.
func acceptEach(l net.Listener, log zerolog.Logger, handle func(net.Conn)) error {
	var delay time.Duration
	var lastLine time.Time
	failures, logged := 0, false // failures not yet in a line; a failure line awaits its "again"
	for {
		conn, err := l.Accept()
		switch {
		case err == nil:
			delay = 0
			if logged && time.Since(lastLine) >= time.Second {
				log.Info().Int("failures", failures).Msg("accepting again")
				failures, logged = 0, false
			}
			handle(conn)
			continue
		case errors.Is(err, net.ErrClosed):
			return nil
		case !temporaryAcceptError(err):
			log.Error().Err(err).Msg("accept failed; listener stopped")
			return err
		}
		delay = min(max(2*delay, firstAcceptDelay), maxAcceptDelay)
		failures++
		if now := time.Now(); now.Sub(lastLine) >= time.Second {
			log.Warn().Err(err).Int("failures", failures).Str("retry_in", delay.String()).Msg("accept failed; retrying")
			lastLine, failures, logged = now, 0, true
		}
		time.Sleep(delay)
	}
}

// temporaryAcceptError: the listener itself is fine, only this accept failed.
func temporaryAcceptError(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var temporary interface {
		Timeout() bool
		Temporary() bool
	}
	return errors.As(err, &temporary) && (temporary.Timeout() || temporary.Temporary())
}
