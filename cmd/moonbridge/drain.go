package main

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/relay"
)

// drainWhenStopped waits for stop, for a listener that stopped for good, or for an upgrade that
// handed the listeners to a new process (handed). Stopped, it drains srv for up to
// shutdown.drain_timeout (read then: a reload may have changed it), or until hurry ends. A
// failed listener makes it return an error, so that the process exits non-zero and systemd's
// Restart=on-failure starts it again. Handed over, it closes the admin endpoint (the new
// process answers on its address) and ends as stayThenDrain says.
func drainWhenStopped(stop, hurry context.Context, srv *relay.Server, handed <-chan successor, closeAdmin func(), reloads *configReloader, log zerolog.Logger) error {
	var failure error
	select {
	case <-stop.Done():
	case failure = <-srv.Failed():
		log.Error().Err(failure).Msg("a listener stopped for good; draining, then exiting with an error to be restarted")
	case next := <-handed:
		closeAdmin()
		return stayThenDrain(stop, hurry, srv, next, reloads.upgradeSettings().Stay, reloads.drainTimeout(), log)
	}
	drain := reloads.drainTimeout()
	log.Info().Str("drain_timeout", drain.String()).Msg("shutting down")
	drainFor(hurry, srv, drain)
	return failure
}

// drainFor drains srv for up to timeout, or until hurry ends.
func drainFor(hurry context.Context, srv *relay.Server, timeout time.Duration) relay.DrainResult {
	ctx, cancel := context.WithTimeout(hurry, timeout)
	defer cancel()
	return srv.Drain(ctx)
}
