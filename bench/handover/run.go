package handover

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/moonbridge/moonbridge/bench/flood"
	"github.com/moonbridge/moonbridge/bench/target"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// Config is one run.
type Config struct {
	Binary           string   // the moonbridge started, and the one each upgrade starts
	Args             []string // its serve flags, --log-format json among them
	Addr             string   // its listener, host:port
	Groups           []flood.Group
	Paced            *traffic.Paced
	LoginConcurrency int
	Upgrades         int           // signals, each to the process serving then
	Spacing          time.Duration // from one hand-over's line to the next signal
	Warmup           time.Duration // after the logins, before the first window
	Window           time.Duration // round trips before the first signal, and after the last hand-over
	ExitWait         time.Duration // how long after the last window the old processes are waited for
	HandedTimeout    time.Duration // from a signal to the hand-over's line, at most
	ConnectEvery     time.Duration
	PingHost         string    // a host whose route answers a server-list ping
	Log              io.Writer // moonbridge's output, every line
}

// Result is what a run measured.
type Result struct {
	Players     flood.Health `json:"players"`
	Alive       int64        `json:"alive"`
	FirstBroken string       `json:"first_broken,omitempty"` // the first broken player's error
	Upgrades    []Upgrade    `json:"upgrades"`
	// Round trips of the players' keepalives in the window before the first signal and from it
	// to Window after the last hand-over; the longest is the longest pause of any stream.
	Before   Trips    `json:"before"`
	During   Trips    `json:"during"`
	Connects Connects `json:"connects"`
	FirstRSS int64    `json:"first_rss_kib"`         // the first process, before the first signal
	ErrLines int64    `json:"error_lines"`           // moonbridge's lines at level error or above
	ErrTexts []string `json:"error_texts,omitempty"` // the first maxErrTexts of them
}

// Trips are one window's round trips.
type Trips struct {
	N         uint64  `json:"n"`
	P99Ms     float64 `json:"p99_ms"`
	LongestMs float64 `json:"longest_ms"`
}

// Upgrade is one signal and what came of it.
type Upgrade struct {
	OldPID         int            `json:"old_pid"`
	NewPID         int            `json:"new_pid"`
	HandedMs       float64        `json:"handed_ms"` // from the signal to the old process's hand-over line
	Moved          int            `json:"moved"`
	Unknown        int            `json:"unknown"` // let go without the new process's answer
	Stayed         int            `json:"stayed"`  // sessions still open in the old process
	StayedByReason map[string]int `json:"stayed_by_reason,omitempty"`
	Taken          int            `json:"taken"` // the new process's count; -1: its line did not come
	Refused        int            `json:"refused"`
	// ExitS is from the signal until the old process exited; -1: it had not when the run ended.
	ExitS      float64 `json:"exit_s"`
	HandRSSKiB int64   `json:"hand_rss_kib"` // the old process at its hand-over line
	OldRSSKiB  int64   `json:"old_rss_kib"`  // at the end of the window after the last hand-over; 0: exited
	NewRSSKiB  int64   `json:"new_rss_kib"`
	Failed     string  `json:"failed,omitempty"` // the upgrade failed or the signal was ignored
	signalled  time.Time
	exit       *exitWatch
}

// ErrNoHandOver is a signal after which no hand-over line came in time.
var ErrNoHandOver = errors.New("handover: no hand-over line after the signal")

// Run starts moonbridge and the players, upgrades, and stops everything it started.
func Run(ctx context.Context, cfg Config) (res Result, err error) {
	lines, log := make(chan line, 256), new(runLog)
	first, err := launch(ctx, cfg, lines, log)
	if err != nil {
		return res, err
	}
	defer func() {
		err = errors.Join(err, stopAll(log.pids(first), cfg.Args))
		res.ErrLines, res.ErrTexts = log.errors.Load(), log.texts()
	}()
	players := flood.NewPlayers(cfg.Paced)
	pctx, stopPlayers := context.WithCancel(ctx)
	defer func() { stopPlayers(); players.Wait() }()
	if err := players.Start(pctx, cfg.Groups, cfg.LoginConcurrency); err != nil {
		return res, err
	}
	connects := startConnects(ctx, cfg.ConnectEvery, cfg.Addr, cfg.PingHost)
	err = measure(ctx, cfg, players, lines, first, &res)
	res.Connects = connects.finish()
	res.Players = players.Health() // before the players stop: those are not broken
	res.Alive, res.FirstBroken = res.Players.Started-res.Players.Broken, players.FirstError()
	return res, err
}

// launch starts the first process with its output on a pipe of the harness's own (an
// exec.Cmd's copying goroutine would wait for the new processes too, which inherit it) and
// reads its lines, and the new processes', from then on.
func launch(ctx context.Context, cfg Config, lines chan line, log *runLog) (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(cfg.Binary, cfg.Args...)
	cmd.Stdout, cmd.Stderr = w, w
	go readLines(r, cfg.Log, lines, log.add)
	m, err := target.Launch(ctx, cfg.Binary, cmd, cfg.Addr, target.DialProbe)
	w.Close()
	if err != nil {
		return 0, err
	}
	return m.PID(), nil
}

// measure runs the windows and the upgrades.
func measure(ctx context.Context, cfg Config, players *flood.Players, lines <-chan line, pid int, res *Result) error {
	if !flood.Sleep(ctx, cfg.Warmup) {
		return ctx.Err()
	}
	players.Window()
	if !flood.Sleep(ctx, cfg.Window) {
		return ctx.Err()
	}
	res.FirstRSS = rssKiB(pid)
	res.Before = trips(players.Window().Proxy())
	for i := range cfg.Upgrades {
		if i > 0 {
			if !flood.Sleep(ctx, cfg.Spacing) {
				return ctx.Err()
			}
		}
		up, err := upgrade(ctx, cfg, pid, lines)
		res.Upgrades = append(res.Upgrades, up)
		if err != nil {
			return err
		}
		if up.Failed != "" {
			break
		}
		pid = up.NewPID
	}
	if !flood.Sleep(ctx, cfg.Window) {
		return ctx.Err()
	}
	res.During = trips(players.Window().Proxy())
	for i := range res.Upgrades {
		res.Upgrades[i].OldRSSKiB, res.Upgrades[i].NewRSSKiB = rssKiB(res.Upgrades[i].OldPID), rssKiB(res.Upgrades[i].NewPID)
	}
	waitExits(ctx, res.Upgrades, cfg.ExitWait)
	return nil
}

// upgrade signals pid and reads the lines until its hand-over's (and the new process's count
// of what it took, which may come just after it) or its failure.
func upgrade(ctx context.Context, cfg Config, pid int, lines <-chan line) (Upgrade, error) {
	up := Upgrade{OldPID: pid, signalled: time.Now(), ExitS: -1, Taken: -1}
	if err := syscall.Kill(pid, syscall.SIGUSR2); err != nil {
		return up, fmt.Errorf("SIGUSR2 to %d: %w", pid, err)
	}
	timeout := time.NewTimer(cfg.HandedTimeout)
	defer timeout.Stop()
	for up.NewPID == 0 || up.Taken < 0 {
		select {
		case <-ctx.Done():
			return up, ctx.Err()
		case <-timeout.C:
			if up.NewPID != 0 {
				return up, nil // the new process's count did not come: Taken says so
			}
			return up, fmt.Errorf("%w within %v (pid %d)", ErrNoHandOver, cfg.HandedTimeout, pid)
		case l, ok := <-lines:
			if !ok {
				return up, fmt.Errorf("%w: moonbridge's output ended", ErrNoHandOver)
			}
			if done := up.read(l); done {
				return up, nil
			}
		}
	}
	return up, nil
}

// read takes one line into up; it says whether the upgrade has failed.
func (up *Upgrade) read(l line) (failed bool) {
	switch l.kind() {
	case kindHanded:
		up.HandedMs = ms(time.Since(up.signalled))
		up.NewPID, up.Moved, up.Unknown, up.Stayed, up.StayedByReason = l.NewPID, l.Moved, l.Unknown, l.Sessions, l.Stayed
		up.HandRSSKiB = rssKiB(up.OldPID)
		up.exit = watchExit(context.Background(), up.OldPID, up.signalled)
	case kindTaken:
		up.Taken, up.Refused = l.Taken, l.Refused
	case kindFailed, kindIgnored:
		up.Failed = l.Message + ": " + l.Error
		return true
	}
	// kindLost comes from an older process whose successor ended (an earlier upgrade's): it is
	// not this signal's outcome, and as an error line it is in Result.ErrLines.
	return false
}
