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

// hangups catches SIGHUP from the moment it is made: Go's default for SIGHUP ends the process,
// and systemd's ExecReload sends it whatever the config serves. One that arrives before handle
// is called waits in the channel.
type hangups struct {
	signals chan os.Signal
	done    chan struct{}
}

func catchHangups() *hangups {
	h := &hangups{signals: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(h.signals, syscall.SIGHUP)
	return h
}

// handle calls reload for every SIGHUP, one at a time, until stop.
func (h *hangups) handle(reload func()) {
	go func() {
		for {
			select {
			case <-h.signals:
				reload()
			case <-h.done:
				return
			}
		}
	}()
}

func (h *hangups) stop() {
	signal.Stop(h.signals)
	close(h.done)
}
