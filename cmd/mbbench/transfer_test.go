package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/modern/playtest"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

// Two stand-in proxies forward to one fake backend; the first one's drain moves its players to
// the second (kicking those kick says), which tests the transfer run without moonbridge.
type proxies struct {
	from, to *playtest.Forwarder
	toHost   string
	toPort   uint16
}

func startProxies(t *testing.T) *proxies {
	be := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	p := &proxies{from: playtest.StartForwarder(t, be), to: playtest.StartForwarder(t, be)}
	host, port, _ := net.SplitHostPort(p.to.Addr)
	n, _ := strconv.Atoi(port)
	p.toHost, p.toPort = host, uint16(n)
	return p
}

func (p *proxies) drain(kick func(i int) bool) {
	p.from.Drain(func(i int) playtest.Move {
		if kick(i) {
			return playtest.Move{Reason: "Server closed"}
		}
		return playtest.Move{Host: p.toHost, Port: p.toPort, Cookies: map[string][]byte{"moonbridge:transfer": []byte("blob")}}
	})
}

func (p *proxies) run(players int, kick func(int) bool) (transferReport, error) {
	t := transferRun{
		dialer: client.TCPDialer{Addr: p.from.Addr}, players: players, joinConcurrency: 2, to: p.to.Addr,
		follow: client.FollowConfig{Host: "localhost", Port: 25565, Interval: 20 * time.Millisecond, Payload: 600},
		drain: func(context.Context) (time.Time, error) {
			start := time.Now()
			p.drain(kick)
			return start, nil
		},
		wait: 10 * time.Second, progress: io.Discard,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return t.run(ctx)
}

func TestTransferRunMovesEveryPlayer(t *testing.T) {
	rep, err := startProxies(t).run(5, func(int) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Players != 5 || rep.Moved != 5 || rep.Elsewhere != 0 || rep.EchoAfter != (client.EchoCount{OK: 5}) ||
		rep.EchoBefore.OK < 5 || rep.EchoBefore.Bad != 0 || rep.MoveMs.N != 5 || rep.LastBackMs <= 0 || rep.LastBackMs < rep.MoveMs.Max {
		t.Errorf("report %+v", rep)
	}
	if err := rep.write(io.Discard, io.Discard); err != nil {
		t.Errorf("a run that moved everyone failed: %v", err)
	}
}

func TestTransferRunCountsPlayersNotMoved(t *testing.T) {
	rep, err := startProxies(t).run(3, func(i int) bool { return i == 1 })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Moved != 2 || rep.Disconnected != 1 || rep.Details["Server closed"] != 1 || rep.MoveMs.N != 2 {
		t.Errorf("report %+v", rep)
	}
	var summary bytes.Buffer
	if err := rep.write(io.Discard, &summary); err == nil || !strings.Contains(summary.String(), "disconnected 1") {
		t.Errorf("write = %v; summary:\n%s", err, summary.String())
	}
}

// The command itself, draining when the file appears: the JSON line is the report. The
// stand-in proxy drains once mbbench says every player is in play (a Transfer during the
// login would be no drain a proxy does).
func TestTransferCommandWithDrainFile(t *testing.T) {
	p := startProxies(t)
	file := filepath.Join(t.TempDir(), "drain")
	done := make(chan struct{})
	var code int
	var stdout, stderr testutil.SyncBuffer
	go func() {
		defer close(done)
		code = dispatch([]string{"transfer", "--players", "3", "--from", p.from.Addr, "--to", p.to.Addr,
			"--drain-file", file, "--interval", "20ms", "--wait", "10s", "--timeout", "30s"}, &stdout, &stderr)
	}()
	testutil.WaitFor(t, "mbbench to say all three players are in play", func() bool {
		return strings.Contains(stderr.String(), "# all 3 players in play")
	})
	os.WriteFile(file, nil, 0o600)
	p.drain(func(int) bool { return false })
	<-done
	var rep transferReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || code != 0 || rep.Moved != 3 || rep.Meta.To != p.to.Addr {
		t.Errorf("exit %d, report %+v (%v) from %q; stderr %q", code, rep, err, stdout.String(), stderr.String())
	}
}

func TestTransferFlagMistakes(t *testing.T) {
	for _, args := range [][]string{
		{"transfer", "--to", "127.0.0.1:1", "--drain-cmd", "true"},
		{"transfer", "--from", "127.0.0.1:1", "--to", "127.0.0.1:2"},
		{"transfer", "--from", "127.0.0.1:1", "--to", "127.0.0.1:2", "--drain-cmd", "true", "--drain-file", "f"},
		{"transfer", "--from", "127.0.0.1:1", "--to", "127.0.0.1:2", "--drain-cmd", "true", "--via", "ws"},
	} {
		if code, _, stderr := mbbench(args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

func TestDrainCommandRunsAndFails(t *testing.T) {
	var out bytes.Buffer
	for cmd, ok := range map[string]bool{"echo drained": true, "exit 3": false} {
		f := transferFlags{drainCmd: cmd}
		before := time.Now()
		start, err := f.drainer(&out)(context.Background())
		if (err == nil) != ok || start.Before(before) {
			t.Errorf("%q: start %v, err %v", cmd, start, err)
		}
	}
	if !strings.Contains(out.String(), "drained") {
		t.Errorf("the command's output %q is not passed on", out.String())
	}
}
