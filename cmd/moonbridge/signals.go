package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
)

// signalContext ends stop on the first SIGINT or SIGTERM (serve drains, the client closes its
// sessions) and hurry on the second (serve closes the sessions still open at once); after that,
// one more SIGINT calls exit(130) for an operator who does not want to wait at all.
func signalContext(log zerolog.Logger, exit func(int)) (stop, hurry context.Context, release func()) {
	stop, stopped := context.WithCancel(context.Background())
	hurry, hurried := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 3)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer signal.Stop(signals)
		sig := <-signals
		log.Info().Str("signal", sig.String()).Msg("stopping; send SIGTERM or SIGINT again to close every session now")
		stopped()
		sig = <-signals
		log.Warn().Str("signal", sig.String()).Msg("second signal: closing every session now")
		hurried()
		for sig := range signals {
			if sig == os.Interrupt {
				log.Warn().Msg("third signal: exiting now")
				exit(130)
				return
			}
		}
	}()
	return stop, hurry, func() { signal.Stop(signals); stopped(); hurried() }
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
