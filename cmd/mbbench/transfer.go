package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
)

// transferFlags are mbbench transfer's: where the players join and must be moved to, and what
// drains the first proxy.
type transferFlags struct {
	players, joinConcurrency, payload int
	via, from, to, host               string
	drainCmd, drainFile               string
	interval, wait, timeout           time.Duration
}

func (f *transferFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.players, "players", 10, "1.21.1 players to join to --from")
	fs.StringVar(&f.via, "via", client.TransportTCP, "how players reach the proxies: tcp, ws or wss")
	fs.StringVar(&f.from, "from", "", "the running proxy the players join: `ADDR` (host:port) or ws:// / wss:// URL")
	fs.StringVar(&f.to, "to", "", "the `HOST:PORT` the draining proxy's Transfers must name (a ws URL keeps its path; only the address changes)")
	fs.StringVar(&f.host, "host", "localhost", "the host the first join's handshake names")
	fs.StringVar(&f.drainCmd, "drain-cmd", "", "run this shell `command` once every player is in play (e.g. 'kill -TERM PID'); the clock starts when it does")
	fs.StringVar(&f.drainFile, "drain-file", "", "instead of --drain-cmd: once every player is in play, wait for this `file` to appear; the clock starts then")
	fs.DurationVar(&f.interval, "interval", time.Second, "between a player's echoes while it waits for the Transfer")
	fs.IntVar(&f.payload, "payload", 600, "`bytes` of each echo (above the backend's compression threshold of 256, compressed)")
	fs.IntVar(&f.joinConcurrency, "join-concurrency", 16, "joins in flight at once")
	fs.DurationVar(&f.wait, "wait", time.Minute, "after the drain starts, how long players have to be back in play")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "stop the run after this long")
}

func (f *transferFlags) check() error {
	switch {
	case f.from == "" || f.to == "":
		return usageError("give --from (where players join) and --to (where they must be moved)")
	case (f.drainCmd == "") == (f.drainFile == ""):
		return usageError("give exactly one of --drain-cmd and --drain-file")
	case f.players < 1 || f.joinConcurrency < 1 || f.payload < 0:
		return usageError("--players and --join-concurrency must be positive, --payload not negative")
	case f.interval <= 0 || f.wait <= 0:
		return usageError("--interval and --wait must be positive")
	}
	return nil
}

// transferCommand: mbbench transfer, players moved from one running proxy to another by its
// drain.
func transferCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("transfer", "--from ADDR --to HOST:PORT (--drain-cmd CMD | --drain-file F) [flags]",
		"Drain by transfer: 1.21.1 players join the proxy at --from and echo; once all are in play, the drain runs and each must be moved (Store Cookie, Transfer) to --to and echo there. Reports how many moved, how long it took and whether every echo came back byte for byte.", stdout, stderr)
	var f transferFlags
	f.register(fs.FlagSet)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	d, err := client.NewDialer(f.via, f.from)
	if err != nil {
		return usageError("%v", err)
	}
	if _, err := raiseNoFile(uint64(2*f.players+64), stderr); err != nil { // a moving player holds two streams a moment
		return err
	}
	t := transferRun{
		dialer: d, players: f.players, joinConcurrency: f.joinConcurrency, to: f.to, wait: f.wait,
		follow: client.FollowConfig{Host: f.host, Port: 25565, Interval: f.interval, Payload: f.payload},
		drain:  f.drainer(stderr), progress: stderr,
	}
	var rep transferReport
	err = withSignals(f.timeout, func(ctx context.Context) error {
		rep, err = t.run(ctx)
		return err
	})
	if err != nil {
		return err
	}
	rep.Meta = transferMeta{Time: time.Now().Format(time.RFC3339), Args: os.Args[1:], Via: f.via, From: f.from, To: f.to}
	return rep.write(stdout, stderr)
}

// drainer is what starts the drain: --drain-cmd run by sh, or --drain-file awaited.
func (f *transferFlags) drainer(stderr io.Writer) func(context.Context) (time.Time, error) {
	if f.drainCmd != "" {
		return func(ctx context.Context) (time.Time, error) {
			start := time.Now()
			cmd := exec.CommandContext(ctx, "sh", "-c", f.drainCmd)
			cmd.Stdout, cmd.Stderr = stderr, stderr
			if err := cmd.Run(); err != nil {
				return start, fmt.Errorf("--drain-cmd: %w", err)
			}
			return start, nil
		}
	}
	return func(ctx context.Context) (time.Time, error) {
		fmt.Fprintf(stderr, "# waiting for %s to appear\n", f.drainFile)
		for {
			if _, err := os.Stat(f.drainFile); err == nil {
				return time.Now(), nil
			} else if !errors.Is(err, os.ErrNotExist) {
				return time.Time{}, fmt.Errorf("--drain-file: %w", err)
			}
			select {
			case <-ctx.Done():
				return time.Time{}, ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}
