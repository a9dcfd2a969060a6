package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/boring"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
)

// Players whose online login moonbridge ran (AES/CFB8 on their stream, a 1.20.5+ client, the
// backend's Set Compression) move to the new process in an upgrade over tcp, ws and (with
// BoringSSL) wss: mid-stream, byte-exact both ways through the cipher carried over, and each
// one's end line, from the new process, says it was online.
func TestUpgradeMovesOnlineLogins(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	secret := []byte("velocity-s3cret")
	backend := authtest.Backend{Forwarding: auth.ForwardVelocity, VelocitySecret: secret, Compression: true,
		Got: make(chan authtest.BackendLogin, 16), Received: new(testutil.SyncBuffer)}
	ln := testutil.Serve(t, backend.Serve)
	secretFile := filepath.Join(t.TempDir(), "velocity.secret")
	writeFile(t, secretFile, secret)
	dir := t.TempDir()
	p := &oldProxy{path: filepath.Join(dir, "moonbridge"), tcp: testutil.FreePort(t), ws: testutil.FreePort(t), admin: testutil.FreePort(t)}
	install(t, buildMoonbridge(t, dir, "v1.0.0-old"), p.path)
	p.file = onlineUpgradeConfig(t, p, ln.Addr().String(), ss.URL, secretFile)
	p.cmd, p.log = startBinary(t, p.path, p.file)
	p.log.waitFor(t, "Admin endpoint")

	transports := map[string]string{"tcp": p.tcp, "ws": p.ws}
	if boring.Enabled {
		transports["wss"] = p.ws
	}
	var players []*movingPlayer
	for transport, addr := range transports {
		players = append(players, startOnlinePlayer(t, transport, addr, "On"+transport, ss, &backend))
	}
	testutil.WaitFor(t, "every stream to be under way", func() bool { return everyEchoed(players, 20*moveChunk) })
	upgradeHanded(t, p.cmd, p.log)
	done, _ := p.log.waitCollecting(t, "upgrade: this process is done")
	if done["moved"] != float64(len(players)) || done["stayed"] != float64(0) {
		t.Errorf("last line of the old process %v: want %d moved, none stayed", done, len(players))
	}
	waitStreamsGoOn(t, players)
	for _, pl := range players {
		for _, err := range pl.finish(t) {
			t.Error(err)
		}
	}
	ended := map[any]bool{}
	for range players {
		line, _ := p.log.waitCollecting(t, "session ended")
		if line["online"] != true || line["player_uuid"] == nil || ended[line["player"]] {
			t.Errorf("end line %v: want one per player, online, with the UUID the session server gave", line)
		}
		ended[line["player"]] = true
	}
}

// everyEchoed says whether every player has had n pattern bytes back.
func everyEchoed(players []*movingPlayer, n int64) bool {
	for _, pl := range players {
		if pl.echoed.Load() < n {
			return false
		}
	}
	return true
}

// onlineUpgradeConfig is upgradeConfig's proxy with its one route running online logins
// against the session server at sessions, forwarding to backend by Velocity with the secret in
// secretFile.
func onlineUpgradeConfig(t *testing.T, p *oldProxy, backend, sessions, secretFile string) string {
	t.Helper()
	route := fmt.Sprintf("  - {hosts: ['*'], backends: ['%s'], auth: online, forwarding: velocity, velocity_secret_file: %s}\n", backend, secretFile)
	return upgradeConfigRoutes(t, p.tcp, p.ws, p.admin, route, fmt.Sprintf("login: {session_server: '%s'}\nupgrade: {stay: 10m}\n", sessions))
}

// startOnlinePlayer logs a 1.20.5+ player named name in through the proxy's online login over
// transport and starts its pattern stream through the player's cipher.
func startOnlinePlayer(t *testing.T, transport, addr, name string, ss *authtest.SessionServer, backend *authtest.Backend) *movingPlayer {
	t.Helper()
	conn, err := dialTransport(transport, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	pc, err := authtest.Player{Name: name, Protocol: 767, Sessions: ss}.Login(conn, "play.example.net")
	if err != nil {
		t.Fatalf("%s: login: %v", name, err)
	}
	waitBackendLogin(t, name, backend)
	for _, want := range [][]byte{{mc.SetCompressionID}, {0, mc.LoginSuccessID}} {
		if body, err := pc.ReadFrame(); err != nil || !bytes.HasPrefix(body, want) {
			t.Fatalf("%s: read % x %v, want a frame starting % x", name, body, err, want)
		}
	}
	pl := &movingPlayer{name: name, conn: conn, rw: struct {
		io.Reader
		io.Writer
	}{pc.R, pc}, stop: make(chan struct{}), wrote: make(chan struct{}), started: time.Now()}
	pl.stream()
	return pl
}

// waitBackendLogin waits for the backend to see name's login; the proxy's health probes, which
// the backend sees as logins cut short, are passed over.
func waitBackendLogin(t *testing.T, name string, backend *authtest.Backend) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case got := <-backend.Got:
			if got.Err == nil && got.Forwarded.Name == name {
				return
			}
		case <-deadline:
			t.Fatalf("%s: its login did not reach the backend", name)
		}
	}
}
