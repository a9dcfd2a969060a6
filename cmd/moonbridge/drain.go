package main

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/relay"
)

// drainWhenStopped waits for stop or for a listener that stopped for good, then drains srv
// for up to timeout() (read then: a reload may have changed it), or until hurry ends. A failed listener makes it return an error, so that
// the process exits non-zero and systemd's Restart=on-failure starts it again.
func drainWhenStopped(stop, hurry context.Context, srv *relay.Server, timeout func() time.Duration, log zerolog.Logger) error {
	var failure error
	select {
	case <-stop.Done():
	case failure = <-srv.Failed():
		log.Error().Err(failure).Msg("a listener stopped for good; draining, then exiting with an error to be restarted")
	}
	drain := timeout()
	log.Info().Str("drain_timeout", drain.String()).Msg("shutting down")
	ctx, cancel := context.WithTimeout(hurry, drain)
	defer cancel()
	srv.Drain(ctx)
	return failure
}
