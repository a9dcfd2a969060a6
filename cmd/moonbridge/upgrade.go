package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/relay"
)

// successor is the process an upgrade handed the listeners to (upgrade_linux.go).
type successor struct {
	pid   int
	build string
	// gone ends, with the exit status as its cause, if the successor ends while this process
	// still runs: then nobody accepts on the listeners.
	gone context.Context
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
// accepts on the same sockets), lets the sessions open here run on until they end, stay passes,
// the successor ends or stop ends, then drains them as SIGTERM does (Transfer, drain timeout,
// then closed). No session moves to the successor yet: moving established sessions needs the
// event loops to let a session go, which is not built, so "moved" is 0 in the log lines.
func stayThenDrain(stop, hurry context.Context, srv *relay.Server, next successor, stay, drain time.Duration, log zerolog.Logger) error {
	staying := srv.HandOver()
	log.Info().Int("new_pid", next.pid).Str("new_version", next.build).Int("moved", 0).Int("sessions", staying).Str("stay", stay.String()).
		Msg("upgrade: the new process accepts on the listeners now, this one no more; the sessions here stay until they end or upgrade.stay passes, then drain (moving established sessions is not built yet: 0 moved)")
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
	log.Info().Int("moved", 0).Int("stayed", stayed).Int("ended", r.Ended).Int("transferred", r.Transferred).Int("closed", r.Closed).
		Msg(fmt.Sprintf("upgrade: this process is done: 0 sessions moved, %d stayed: %d ended by themselves (%d of them transferred), %d closed at the drain's end", stayed, r.Ended, r.Transferred, r.Closed))
	if lost != nil {
		return fmt.Errorf("the new process (pid %d) ended before this one: %w", next.pid, lost)
	}
	return nil
}

// errSuccessorEnded is the cause of successor.gone when the successor exited with status 0.
var errSuccessorEnded = errors.New("exit status 0")
