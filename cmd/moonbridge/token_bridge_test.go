package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/bridge"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/gossl/tlstest"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/relay/relaytest"
	"github.com/moonbridge/moonbridge/ws"
)

// The bridge carries a token to a route that requires one, given with --token or with
// --token-file (read by the client's flags as the command line does), over ws and wss; without
// one the game's connection is closed and the backend never sees it.
func TestBridgeCarriesTokenEndToEnd(t *testing.T) {
	pub, token, tokenFile := issueToken(t, t.TempDir())
	backend, seen := echoBackend(t)
	for _, protocol := range []relay.Protocol{relay.WS, relay.WSS} {
		addr := startTokenRelay(t, protocol, pub, backend)
		url := string(protocol) + "://" + addr + "/mc"
		for _, flags := range [][]string{{"--token", token}, {"--token-file", tokenFile}} {
			game := dialThroughBridge(t, append([]string{"--url", url, "--insecure"}, flags...))
			if got := echo(game); got != nil {
				t.Fatalf("%s %s: %v", protocol, flags[0], got)
			}
		}
		before := seen.Load()
		if err := echo(dialThroughBridge(t, []string{"--url", url, "--insecure"})); err == nil {
			t.Fatalf("%s: a bridge without a token got through", protocol)
		}
		if seen.Load() != before {
			t.Fatalf("%s: the backend saw a session without a token", protocol)
		}
	}
}

// issueToken makes a signing key in dir and a token for alice, as a server owner does; it
// returns the public key file, the token and the file that holds it.
func issueToken(t *testing.T, dir string) (pub, token, tokenFile string) {
	t.Helper()
	base := filepath.Join(dir, "k")
	if code, _, stderr := run("token", "keygen", "--out", base); code != 0 {
		t.Fatal(stderr)
	}
	_, token, _ = run("token", "issue", "--key", base+".key", "--subject", "alice")
	tokenFile = filepath.Join(dir, "alice.token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	return base + ".pub", strings.TrimSpace(token), tokenFile
}

// startTokenRelay runs a relay on 127.0.0.1:0 whose one route requires a token checked with
// the public key file keys; with keys "" it lets everyone in.
func startTokenRelay(t *testing.T, protocol relay.Protocol, keys, backend string) string {
	t.Helper()
	rc := relay.Config{
		Listeners: []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{protocol}}},
		Routes:    []relay.Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend}}}},
		WebSocket: ws.ServerConfig{Path: "/mc"},
		Fallback:  relay.DefaultFallback(),
		Logger:    zerolog.New(zerolog.NewTestWriter(t)),
	}
	if keys != "" {
		cfg := config.Default()
		cfg.Access.Keys = []string{keys}
		tokens, err := tokenVerifier(cfg.Access)
		if err != nil {
			t.Fatal(err)
		}
		rc.Tokens, rc.Routes[0].Access = tokens, relay.Access{Tokens: access.TokensRequired}
	}
	if protocol == relay.WSS {
		var err error
		if rc.TLS, _, err = tlstest.TLSServer(t, "go"); err != nil {
			t.Fatal(err)
		}
	}
	return relaytest.Start(t, rc)
}

// dialThroughBridge starts `moonbridge client` with args (parsed as the command line is) and
// connects a game to it.
func dialThroughBridge(t *testing.T, args []string) net.Conn {
	t.Helper()
	cfg, err := parseCommandLine("client", new(clientFlags), append(args, "--listen", "127.0.0.1:0")...)
	if err != nil {
		t.Fatal(err)
	}
	bcfg, err := bridgeConfig(cfg.Client, settingAdvice{}, zerolog.New(zerolog.NewTestWriter(t)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.New(bcfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	game, err := net.Dial("tcp", b.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	game.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { game.Close() })
	return game
}

// echo sends a login handshake and bytes behind it, and wants the bytes back.
func echo(game net.Conn) error {
	payload := []byte("moonbridge access test payload")
	hs := mc.Handshake{Protocol: 767, Host: "play.example", Port: 25565, NextState: mc.NextLogin}
	if _, err := game.Write(append(hs.AppendFrame(nil, hs.Host), payload...)); err != nil {
		return err
	}
	got := make([]byte, len(payload))
	if _, err := io.ReadFull(game, got); err != nil {
		return err
	}
	if !bytes.Equal(got, payload) {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// echoBackend reads a handshake, then echoes; seen counts the handshakes it read.
func echoBackend(t *testing.T) (string, *atomic.Int64) {
	seen := new(atomic.Int64)
	ln := testutil.Serve(t, func(conn net.Conn) {
		defer conn.Close()
		r := bufio.NewReader(conn)
		if _, err := mc.ReadHello(r, 0); err != nil {
			return
		}
		seen.Add(1)
		io.Copy(conn, r)
	})
	return ln.Addr().String(), seen
}
