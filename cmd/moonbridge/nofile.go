package main

import (
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/nofile"
)

// raiseNoFile lifts the soft limit on open files to the hard one and says how many sessions
// that leaves room for.
func raiseNoFile(log zerolog.Logger) {
	lim, err := nofile.Raise(0)
	switch {
	case errors.Is(err, nofile.ErrUnsupported):
		return
	case err != nil:
		log.Warn().Err(err).Msg("cannot raise the open files limit")
		return
	}
	log.Info().Uint64("soft", lim.Soft).Uint64("hard", lim.Hard).Uint64("sessions", sessionRoom(lim.Soft)).
		Msg(noFileLine(lim))
}

// descriptorsReserved are the descriptors that are not sessions: standard streams, listeners,
// the admin endpoint, log and certificate files, the runtime's poller.
const descriptorsReserved = 32

// sessionRoom is how many sessions soft descriptors hold: each takes two (the player's socket
// and the backend's).
func sessionRoom(soft uint64) uint64 {
	if soft <= descriptorsReserved {
		return 0
	}
	return (soft - descriptorsReserved) / 2
}

// noFileLine says what the limit is and who raised it: Go's runtime lifts the soft limit to
// the hard one before main runs, so Raise usually finds it there already.
func noFileLine(lim nofile.Limits) string {
	room := fmt.Sprintf("room for about %d sessions (2 descriptors each)", sessionRoom(lim.Soft))
	if lim.WasSoft == lim.Soft {
		return fmt.Sprintf("Open files limit (RLIMIT_NOFILE) %d, the hard limit (the Go runtime raised it at start): %s", lim.Soft, room)
	}
	return fmt.Sprintf("Open files limit (RLIMIT_NOFILE) raised from %d to %d: %s", lim.WasSoft, lim.Soft, room)
}
