package main

import (
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/nofile"
)

// raiseNoFile lifts the soft limit on open files to the hard one and says how many sessions
// that leaves room for, with a warning when limits.max_connections is more than that.
func raiseNoFile(log zerolog.Logger, maxConnections int) {
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
	if warning := noFileShort(lim, maxConnections); warning != "" {
		log.Warn().Int("max_connections", maxConnections).Uint64("sessions", sessionRoom(lim.Soft)).Msg(warning)
	}
}

// noFileShort is a warning when maxConnections sessions need more descriptors than the limit
// holds (a flood of logins reaches it), or "".
func noFileShort(lim nofile.Limits, maxConnections int) string {
	room := sessionRoom(lim.Soft)
	if uint64(maxConnections) <= room {
		return ""
	}
	return fmt.Sprintf("limits.max_connections (%d) is more than the open files limit has room for (about %d "+
		"sessions): at that many, accepts and backend dials fail with \"too many open files\" until sessions end; "+
		"raise LimitNOFILE (ulimit -n) to %d or set max_connections to %d", maxConnections, room,
		2*uint64(maxConnections)+descriptorsReserved, room)
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
