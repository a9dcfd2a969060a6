package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
)

// signalContext ends the returned context on the first SIGINT or SIGTERM, so serve shuts down
// cleanly; a second SIGINT calls exit(130) for an operator who does not want to wait.
func signalContext(log zerolog.Logger, exit func(int)) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer signal.Stop(signals)
		sig := <-signals
		log.Info().Str("signal", sig.String()).Msg("stopping; send SIGINT again to exit at once")
		cancel()
		for sig := range signals {
			if sig == os.Interrupt {
				log.Warn().Msg("second SIGINT: exiting now")
				exit(130)
				return
			}
		}
	}()
	return ctx, func() { signal.Stop(signals); cancel() }
}

// reloader is what SIGHUP reloads (gossl's server: certificates from their files).
type reloader interface{ Reload() error }

// reloadOnHangup reloads r on every SIGHUP until the returned stop is called. A failed reload
// keeps the old certificates; gossl logs why.
func reloadOnHangup(r reloader, log zerolog.Logger) (stop func()) {
	hangups := make(chan os.Signal, 1)
	signal.Notify(hangups, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-hangups:
				if err := r.Reload(); err != nil {
					log.Error().Err(err).Msg("SIGHUP: certificate reload failed; keeping the old ones")
				} else {
					log.Info().Msg("SIGHUP: certificates reloaded")
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(hangups); close(done) }
}
