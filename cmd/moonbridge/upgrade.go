package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/relay"
)

// successor is the process an upgrade handed the listeners to (upgrade_linux.go).
type successor struct {
	pid   int
	build string
	// gone ends, with the exit status as its cause, when nobody accepts on the listeners any
	// more while this process still runs: the successor failed, or it exited 0 and no process
	// it handed them on to holds them (upgradeheirs_linux.go).
	gone context.Context
	// move hands it the established sessions that can move (upgrademove_linux.go); nil when it
	// speaks another hand-over format: then every session stays.
	move func(*relay.Server) relay.MoveReport
}

// startedAs is the path this process was started as, made absolute: what an upgrade starts.
// After a package upgrade replaced the file, that path names the new binary, where
// /proc/self/exe (os.Executable) names the old one, deleted. It is read once, when serve has
// started (serve changes neither the working directory nor PATH).
func startedAs() (string, error) {
	path := os.Args[0]
	if !strings.Contains(path, string(filepath.Separator)) {
		found, err := exec.LookPath(path)
		if err != nil {
			return "", err
		}
		path = found
	}
	return filepath.Abs(path)
}

// stayThenDrain is the old process's end after an upgrade: it stops accepting (the successor
// accepts on the same sockets), moves the sessions that can move to the successor, lets the
// others run on here until they end, stay passes, the successor ends or stop ends, then drains
// them as SIGTERM does (Transfer, drain timeout, then closed). With nothing left to wait for it
// is done at once.
func stayThenDrain(stop, hurry context.Context, srv *relay.Server, next successor, stay, drain time.Duration, log zerolog.Logger) error {
	srv.HandOver()
	moves := relay.MoveReport{}
	if next.move != nil {
		moves = next.move(srv)
	}
	staying := len(srv.Sessions())
	log.Info().Int("new_pid", next.pid).Str("new_version", next.build).Int("moved", moves.Moved).Int("unknown", moves.Unknown).
		Int("sessions", staying).Interface("stayed_by_reason", moves.Stayed).Str("stay", stay.String()).
		Msg(fmt.Sprintf("upgrade: the new process accepts on the listeners now, this one no more; %d sessions moved to it, %d let go without its answer; the %d here (%s) stay until they end or upgrade.stay passes, then drain",
			moves.Moved, moves.Unknown, staying, stayedText(moves.Stayed)))
	stayCtx, cancel := context.WithTimeout(stop, stay)
	defer cancel()
	defer context.AfterFunc(next.gone, cancel)()
	open := srv.WaitForSessions(stayCtx)
	lost := context.Cause(next.gone)
	if lost != nil {
		log.Error().Int("new_pid", next.pid).Err(lost).Msg("upgrade: the new process has ended, so nobody accepts on the listeners; draining, then exiting with an error to be restarted")
	}
	log.Info().Int("open", open).Str("drain_timeout", drain.String()).Msg("upgrade: draining the sessions that stayed")
	r := drainFor(hurry, srv, drain)
	stayed := r.Ended + r.Closed // every session that ended here after the hand-over
	log.Info().Int("moved", moves.Moved).Int("stayed", stayed).Int("ended", r.Ended).Int("transferred", r.Transferred).Int("closed", r.Closed).
		Msg(fmt.Sprintf("upgrade: this process is done: %d sessions moved, %d stayed: %d ended by themselves (%d of them transferred), %d closed at the drain's end", moves.Moved, stayed, r.Ended, r.Transferred, r.Closed))
	if lost != nil {
		return fmt.Errorf("the new process (pid %d) ended before this one: %w", next.pid, lost)
	}
	return nil
}

// stayedText says how many stayed for which reasons, most first.
func stayedText(stayed map[string]int) string {
	reasons := slices.SortedFunc(maps.Keys(stayed), func(a, b string) int {
		if d := stayed[b] - stayed[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", stayed[r], r)
	}
	return strings.Join(parts, ", ")
}

// errSuccessorEnded is the cause of successor.gone when the successor exited with status 0.
var errSuccessorEnded = errors.New("exit status 0")
