package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/buildinfo"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/handover"
)

// handoverFDEnv tells a process started by an upgrade which descriptor is its channel to the
// process that started it (internal/handover); the listening sockets follow it (listenFDsEnv).
const handoverFDEnv = "MOONBRIDGE_HANDOVER_FD"

// childFirstFD is where exec.Cmd.ExtraFiles start in the child: the channel, then the sockets.
const childFirstFD = 3

// exitWait bounds how long a failed new process may take to exit before it is killed.
const exitWait = 5 * time.Second

// upgrader starts the binary at binary on SIGUSR2 and hands it the open sockets; the first
// upgrade whose new process serves is sent on handed, after which SIGUSR2 is ignored here.
type upgrader struct {
	binary   string
	args     []string
	output   *os.File // the new process's stdout and stderr: this one's, so both reach the journal
	sockets  *sockets
	settings func() config.Upgrade
	log      zerolog.Logger
	signals  chan os.Signal
	handed   chan successor
	done     chan struct{}
}

// catchUpgrades catches SIGUSR2 from now on, so that one sent during start-up waits for
// start instead of being lost (Go ignores a signal nobody asked for).
func catchUpgrades() *upgrader {
	u := &upgrader{signals: make(chan os.Signal, 1), handed: make(chan successor, 1), done: make(chan struct{})}
	signal.Notify(u.signals, syscall.SIGUSR2)
	return u
}

// start handles SIGUSR2 from now on; ctx ends an upgrade under way (its new process is killed).
// output is where the new process writes: an *os.File, so that it keeps writing after this
// process exits (os.Stderr otherwise).
func (u *upgrader) start(ctx context.Context, output io.Writer, sock *sockets, settings func() config.Upgrade, log zerolog.Logger) {
	u.args, u.sockets, u.settings, u.log = os.Args[1:], sock, settings, log
	u.output, _ = output.(*os.File)
	if u.output == nil {
		u.output = os.Stderr
	}
	var err error
	if u.binary, err = startedAs(); err != nil {
		log.Warn().Err(err).Msg("upgrade: the path this process was started as is not known; SIGUSR2 will fail")
	}
	go u.serve(ctx)
}

// handedOver delivers the successor once an upgrade succeeded.
func (u *upgrader) handedOver() <-chan successor { return u.handed }

func (u *upgrader) stop() {
	signal.Stop(u.signals)
	close(u.done)
}

func (u *upgrader) serve(ctx context.Context) {
	var next *successor
	for {
		select {
		case <-u.signals:
		case <-u.done:
			return
		}
		if next != nil {
			u.log.Warn().Int("new_pid", next.pid).Msg("SIGUSR2 ignored: this process has handed over already; signal the new one")
			continue
		}
		s, err := u.attempt(ctx)
		u.ignoreQueued()
		if err != nil {
			u.log.Error().Err(err).Msg("upgrade failed; this process keeps serving")
			continue
		}
		next = &s
		u.handed <- s
	}
}

// ignoreQueued drops a SIGUSR2 that arrived during an upgrade: it asked for the same.
func (u *upgrader) ignoreQueued() {
	select {
	case <-u.signals:
		u.log.Warn().Msg("SIGUSR2 ignored: it arrived during the upgrade")
	default:
	}
}

// attempt starts the new process with the sockets and waits, at most upgrade.timeout, for it to
// say it serves. On any failure the new process is killed (unless it has exited by itself) and
// the error says why, with its exit status.
func (u *upgrader) attempt(ctx context.Context) (successor, error) {
	timeout := u.settings().Timeout
	cmd, conn, links, err := u.spawn()
	if err != nil {
		return successor{}, err
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer context.AfterFunc(ctx, func() { conn.Close() })() // SIGTERM here: stop waiting
	u.log.Info().Int("new_pid", pid).Str("binary", u.binary).Str("timeout", timeout.String()).Msg("upgrade: started the new binary; waiting for it to serve")
	peer, err := u.greet(conn, time.Now().Add(timeout))
	if err != nil || !peer.SameFormat() {
		conn.Close()
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("not ready within upgrade.timeout (%s): %w", timeout, err)
	}
	if err != nil {
		return successor{}, &upgradeError{pid: pid, cause: err, status: exitStatus(cmd, exited, err)}
	}
	gone, lost := context.WithCancelCause(context.Background())
	go func() { lost(successorEnd(exited, links)) }()
	next := successor{pid: pid, build: peer.Build, gone: gone}
	if !peer.SameFormat() {
		u.log.Info().Int("new_pid", pid).Uint16("format", peer.Version).Uint16("our_format", handover.Version).
			Msg("upgrade: the new binary speaks another hand-over format: the listeners only, no session moves")
		return next, nil
	}
	next.move = sessionMover(conn, u.log)
	return next, nil
}

// spawn runs the binary with the channel's child end and a copy of every open socket, and
// names those sockets as socketInodes does.
func (u *upgrader) spawn() (*exec.Cmd, *handover.Conn, map[string]bool, error) {
	if u.binary == "" {
		return nil, nil, nil, errors.New("the path this process was started as is not known")
	}
	conn, childEnd, err := handover.Pair()
	if err != nil {
		return nil, nil, nil, err
	}
	defer childEnd.Close()
	files, names, err := u.sockets.handOver(childFirstFD + 1)
	if err != nil {
		conn.Close()
		return nil, nil, nil, err
	}
	defer closeFiles(files)
	cmd := exec.Command(u.binary, u.args...)
	cmd.Env = append(withoutHandover(os.Environ()), handoverFDEnv+"="+strconv.Itoa(childFirstFD), listenFDsEnv+"="+names)
	cmd.ExtraFiles = append([]*os.File{childEnd}, files...)
	cmd.Stdout, cmd.Stderr = u.output, u.output
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, nil, nil, fmt.Errorf("starting %s: %w", u.binary, err)
	}
	conn.Expect(cmd.Process.Pid)
	return cmd, conn, socketInodes(files), nil
}

func (u *upgrader) greet(conn *handover.Conn, deadline time.Time) (handover.Peer, error) {
	peer, err := conn.Greet(buildinfo.Collect().Version, deadline)
	if err == nil {
		err = conn.AwaitReady(deadline)
	}
	return peer, err
}

// withoutHandover is env without the variables of an earlier hand-over.
func withoutHandover(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, handoverFDEnv+"=") || strings.HasPrefix(kv, listenFDsEnv+"=")
	})
}

// exitStatus waits for a failed new process's exit: one that said why or ended has exitWait to
// exit by itself; any other (silent, garbled, too slow) is killed at once.
func exitStatus(cmd *exec.Cmd, exited <-chan error, why error) string {
	var start *handover.StartError
	if errors.As(why, &start) || errors.Is(why, io.EOF) {
		select {
		case err := <-exited:
			return statusError(err).Error()
		case <-time.After(exitWait):
		}
	}
	cmd.Process.Kill()
	return statusError(<-exited).Error() + " (killed by the old process)"
}

// statusError is a process's end as an error, exit status 0 included.
func statusError(err error) error {
	if err == nil {
		return errSuccessorEnded
	}
	return err
}

// upgradeError is a failed upgrade: why, and how the new process ended.
type upgradeError struct {
	pid    int
	cause  error
	status string
}

func (e *upgradeError) Error() string {
	return fmt.Sprintf("new process pid %d: %v; it ended with %s", e.pid, e.cause, e.status)
}

func (e *upgradeError) Unwrap() error { return e.cause }
