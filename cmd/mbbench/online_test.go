package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/bench/upgrade"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
)

var (
	moonbridgeOnce sync.Once
	moonbridgeBin  string
	moonbridgeErr  error
)

// moonbridgeBinary is the relay the online runs start: MOONBRIDGE_BIN, else a pure-Go build of
// the repository's (built once per test binary).
func moonbridgeBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("MOONBRIDGE_BIN"); bin != "" {
		return bin
	}
	moonbridgeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mbbench-test-")
		if err != nil {
			moonbridgeErr = err
			return
		}
		moonbridgeBin = filepath.Join(dir, "moonbridge")
		cmd := exec.Command("go", "build", "-trimpath", "-o", moonbridgeBin, "./cmd/moonbridge")
		cmd.Dir, cmd.Env = "../..", append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			moonbridgeErr = &buildError{err, string(out)}
		}
	})
	if moonbridgeErr != nil {
		t.Fatalf("building moonbridge: %v", moonbridgeErr)
	}
	return moonbridgeBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if moonbridgeBin != "" {
		os.RemoveAll(filepath.Dir(moonbridgeBin))
	}
	os.Exit(code)
}

// onlineRun is a short modded run whose proxy phase logs in online through a real moonbridge.
func onlineRun(t *testing.T, extra ...string) (code int, stdout, stderr string) {
	args := []string{"run", "--serve", moonbridgeBinary(t), "--backend", "127.0.0.1:0", "--auth", "online",
		"--profile", "modded", "--connections", "2", "--window", "4", "--warmup", "5", "--messages", "40",
		"--repeats", "1", "--json"}
	return serveRun(append(args, extra...)...)
}

// serveRun is mbbench with args that start moonbridge: its stderr is a SyncBuffer, since
// moonbridge's output is copied into it while mbbench writes too.
func serveRun(args ...string) (code int, stdout, stderr string) {
	var out bytes.Buffer
	var errOut testutil.SyncBuffer
	code = dispatch(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestOnlineRunThroughMoonbridge: the proxy phase's players log in online (moonbridge's session
// line says online with the fake session server's UUID, which a passed-through login would not
// have), and every byte of the login burst and the round trips arrives as the profile says
// through the cipher (the client's check fails the run otherwise).
func TestOnlineRunThroughMoonbridge(t *testing.T) {
	cases := [][]string{
		{"--transport", "tcp"},
		{"--transport", "wss", "--forwarding", "bungeecord"},
	}
	for _, extra := range cases {
		t.Run(strings.Join(extra, " "), func(t *testing.T) {
			code, stdout, stderr := onlineRun(t, extra...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			var rep runReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("report: %v\n%s", err, stdout)
			}
			if len(rep.Phases) != 2 || rep.Phases[1].Path != "proxy" || rep.Phases[1].Metrics["frames_per_s"] <= 0 {
				t.Errorf("phases %+v", rep.Phases)
			}
			for _, name := range []string{"mbbench00000", "mbbench00001"} {
				if !loggedOnline(stderr, name, authfake.Profile(name).ID.String()) {
					t.Errorf("no session line of %s logged in online\n%s", name, stderr)
				}
			}
		})
	}
}

// loggedOnline: moonbridge's JSON log has the session line of name, logged in online with uuid.
func loggedOnline(log, name, uuid string) bool {
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		var line struct {
			Message    string `json:"message"`
			Player     string `json:"player"`
			PlayerUUID string `json:"player_uuid"`
			Online     bool   `json:"online"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		if line.Message == "session ended" && line.Player == name && line.Online && line.PlayerUUID == uuid {
			return true
		}
	}
	return false
}

// TestOnlineRunRefusesAPassthroughRelay: a relay whose route passes logins through (the backend
// flag replaces mbbench's online route) sends no Encryption Request, and the run fails saying
// so instead of measuring offline logins as online ones.
func TestOnlineRunRefusesAPassthroughRelay(t *testing.T) {
	backend := testutil.FreePort(t)
	code, _, stderr := onlineRun(t, "--backend", backend, "--serve-arg=--backend="+backend)
	if code == 0 || !strings.Contains(stderr, "did not send an Encryption Request") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}

// TestOnlineUpgradesThroughMoonbridge: with --mode upgrades, --auth online and --token-key the
// one config mbbench writes has the route log players in online and require tokens: every
// upgrade carries the token and answers the Encryption Request (a passthrough route would fail
// the run), and the proxy phase reports its rate.
func TestOnlineUpgradesThroughMoonbridge(t *testing.T) {
	key := newKey(t, "k1")
	base := filepath.Join(t.TempDir(), "k1")
	if err := access.WriteKeyPair(base, key); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := serveRun("run", "--mode", "upgrades", "--serve", moonbridgeBinary(t), "--backend", "127.0.0.1:0",
		"--auth", "online", "--transport", "ws", "--token-key", base+".pub", "--token-file", tokenFile(t, key),
		"--connections", "2", "--warmup-duration", "100ms", "--duration", "400ms", "--repeats", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep runReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	if r := rep.Summary["proxy"][upgrade.UpgradesPerSec]; r.N != 1 || r.Median <= 0 {
		t.Errorf("proxy upgrades/s = %+v", r)
	}
}

func TestOnlineFlagMistakes(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--serve", "x", "--auth", "offline"},
		{"run", "--serve", "x", "--auth", "online", "--forwarding", "velocity"},
		{"run", "--serve", "x", "--forwarding", "bungeecord"},
		{"run", "--target", "127.0.0.1:1", "--target-pid", "1", "--auth", "online"},
		{"run", "--serve", "x", "--serve-arg=--config=my.yml", "--auth", "online"},
		{"run", "--serve", "x", "--serve-arg=--config=my.yml", "--auth", "online", "--session-listen", "127.0.0.1:1", "--forwarding", "bungeecord"},
	} {
		code, stdout, stderr := mbbench(args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("mbbench %s: exit %d, stdout %q, stderr %q; want 2 and only stderr", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
