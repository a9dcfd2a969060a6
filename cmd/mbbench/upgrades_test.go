package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/bench/upgrade"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/internal/testutil/relaytest"
	"github.com/moonbridge/moonbridge/internal/testutil/tlstest"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/routes"
	"github.com/moonbridge/moonbridge/ws"
)

// tokenRelay is moonbridge's relay in this process, in front of a backend mbbench will start
// at backendAddr, serving protocol on one route whose tokens are mode, checked with key.
func tokenRelay(t *testing.T, protocol relay.Protocol, mode access.Mode, key access.PublicKey, backendAddr string) string {
	t.Helper()
	tokens, err := access.NewVerifier(access.VerifierConfig{Keys: []access.PublicKey{key}})
	if err != nil {
		t.Fatal(err)
	}
	rc := relay.Config{
		Listeners: []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{protocol}}},
		Routes:    []relay.Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backendAddr}}, Access: relay.Access{Tokens: mode}}},
		Tokens:    tokens,
		WebSocket: ws.ServerConfig{Path: "/mc"},
		Fallback:  relay.DefaultFallback(),
		// every upgrade comes from 127.0.0.1, as with the config --serve writes
		Limits: relay.Limits{MaxConnectionsPerIP: 100000, ConnectionRate: 1e6, ConnectionBurst: 1e6,
			NetworkLimits: relay.NetworkLimits{MaxConnectionsPerNetwork: 100000, ConnectionRatePerNetwork: 1e6,
				ConnectionBurstPerNetwork: 1e6, StatusRatePerNetwork: 1e6, StatusBurstPerNetwork: 1e6,
				LoginRatePerNetwork: 1e6, LoginBurstPerNetwork: 1e6}},
		Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel),
	}
	if protocol == relay.WSS {
		if rc.TLS, _, err = tlstest.TLSServer(t, "go"); err != nil {
			t.Fatal(err)
		}
	}
	return relaytest.Start(t, rc)
}

// tokenFile issues a token signed by key into a file and returns its path.
func tokenFile(t *testing.T, key *access.PrivateKey) string {
	t.Helper()
	now := time.Now()
	tok, err := access.Issue(key, access.Claims{Subject: "bench", IssuedAt: now, NotBefore: now, Expires: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newKey(t *testing.T, id string) *access.PrivateKey {
	t.Helper()
	k, err := access.GenerateKey(access.Ed25519, id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// upgradesRun is `mbbench run --mode upgrades` through a relay on this process, short.
func upgradesRun(t *testing.T, transport, relayAddr, backendAddr string, extra ...string) (int, string, string) {
	target := relayAddr
	if transport != "tcp" {
		target = transport + "://" + relayAddr + "/mc"
	}
	args := []string{"run", "--mode", "upgrades", "--transport", transport, "--target", target,
		"--target-pid", strconv.Itoa(os.Getpid()), "--backend", backendAddr, "--connections", "4",
		"--warmup-duration", "100ms", "--duration", "400ms", "--repeats", "1", "--timeout", "60s", "--json"}
	return mbbench(append(args, extra...)...)
}

// An upgrades run through moonbridge's relay reports upgrades/s, its CPU per upgrade and the
// setup latency over tcp (tokens off: raw Minecraft carries none) and over ws and wss with a
// valid token where the route requires one.
func TestUpgradesRunThroughRelay(t *testing.T) {
	key := newKey(t, "k1")
	valid := tokenFile(t, key)
	for _, c := range []struct {
		transport string
		protocol  relay.Protocol
		mode      access.Mode
	}{{"tcp", relay.Minecraft, access.TokensOff}, {"ws", relay.WS, access.TokensRequired}, {"wss", relay.WSS, access.TokensRequired}} {
		t.Run(c.transport, func(t *testing.T) {
			backendAddr := testutil.FreePort(t)
			relayAddr := tokenRelay(t, c.protocol, c.mode, key.Public(), backendAddr)
			var extra []string
			if c.mode == access.TokensRequired {
				extra = []string{"--token-file", valid}
			}
			code, stdout, stderr := upgradesRun(t, c.transport, relayAddr, backendAddr, extra...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var rep runReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			proxy := rep.Summary["proxy"]
			for _, name := range []string{upgrade.UpgradesPerSec, upgrade.CPUUsPerUpgrade, "p99_ms", "proxy_direct"} {
				if r := proxy[name]; r.N != 1 || r.Median <= 0 {
					t.Errorf("proxy %s = %+v, want one positive value", name, r)
				}
			}
			if r := rep.Summary["direct"][upgrade.UpgradesPerSec]; r.N != 1 || r.Median <= 0 {
				t.Errorf("direct upgrades/s = %+v", r)
			}
		})
	}
}

// A token the route's keys did not sign, or none, gets 401 and fails the run with exit 1.
func TestUpgradesRunFailsOnRefusedToken(t *testing.T) {
	key := newKey(t, "k1")
	wrong := tokenFile(t, newKey(t, "k1")) // same key id, another key: the signature fails
	for _, transport := range []string{"ws", "wss"} {
		protocol := relay.WS
		if transport == "wss" {
			protocol = relay.WSS
		}
		for name, extra := range map[string][]string{"wrong token": {"--token-file", wrong}, "no token": nil} {
			backendAddr := testutil.FreePort(t)
			relayAddr := tokenRelay(t, protocol, access.TokensRequired, key.Public(), backendAddr)
			code, _, stderr := upgradesRun(t, transport, relayAddr, backendAddr, extra...)
			if code != 1 || !strings.Contains(stderr, "401") || !strings.Contains(stderr, "FAILED") {
				t.Errorf("%s, %s: exit %d, stderr %q; want 1 and the 401", transport, name, code, stderr)
			}
		}
	}
}

// The config --serve's moonbridge gets is valid and has one route to the backend: with tokens
// required by the given keys (off without), with the online login of --auth online when asked
// (alone or with the upgrades mode's settings), logging only warnings in the upgrades mode,
// and letting every session from 127.0.0.1 through.
func TestServedConfig(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, id := range []string{"a", "b"} {
		base := filepath.Join(dir, id)
		if err := access.WriteKeyPair(base, newKey(t, id)); err != nil {
			t.Fatal(err)
		}
		files = append(files, base+".pub")
	}
	online := &onlineRoute{sessionServer: "http://127.0.0.1:1234", forwarding: string(auth.ForwardBungeeCord)}
	for _, c := range []servedConfig{
		{quiet: true, tokenKeys: files, tokenCache: 4096}, {quiet: true}, {online: online}, {quiet: true, tokenKeys: files, online: online},
	} {
		cfg, err := config.Parse([]byte(c.text("127.0.0.1:25566")), func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		checkServedConfig(t, c, cfg)
	}
}

func checkServedConfig(t *testing.T, c servedConfig, cfg config.Config) {
	t.Helper()
	tokens, authMode, forwarding, sessions, level := access.TokensOff, routes.AuthPassthrough, auth.ForwardNone, "https://sessionserver.mojang.com", "info"
	if c.tokenKeys != nil {
		tokens = access.TokensRequired
	}
	if c.online != nil {
		authMode, forwarding, sessions = routes.AuthOnline, auth.Forwarding(c.online.forwarding), c.online.sessionServer
	}
	if c.quiet {
		level = "warn"
	}
	if len(cfg.Routes) != 1 || !slices.Equal(cfg.Routes[0].Backends, []string{"127.0.0.1:25566"}) {
		t.Fatalf("%+v: routes %+v", c, cfg.Routes)
	}
	r := cfg.Routes[0]
	if r.Access.Tokens != tokens || r.Auth != authMode || r.Forwarding != forwarding || cfg.Login.SessionServer != sessions || cfg.Log.Level != level {
		t.Errorf("%+v: tokens %q auth %q forwarding %q session server %q log level %q", c, r.Access.Tokens, r.Auth, r.Forwarding, cfg.Login.SessionServer, cfg.Log.Level)
	}
	if !slices.Equal(cfg.Access.Keys, c.tokenKeys) || cfg.Access.TokenCache != c.tokenCache {
		t.Errorf("access.keys %v, token_cache %d, want %v and %d", cfg.Access.Keys, cfg.Access.TokenCache, c.tokenKeys, c.tokenCache)
	}
	if m := cfg.Login.Meter; c.online != nil && (m.Rate < 100000 || m.Burst < 100000) {
		t.Errorf("login meter %+v queues a loop of online logins", m)
	}
	if l := cfg.Limits; l.ConnectionRate < 100000 || l.ConnectionBurst < 100000 || l.MaxConnectionsPerIP < 10000 {
		t.Errorf("limits %+v refuse a loop of sessions from one address", l)
	}
	if n := cfg.Limits.NetworkLimits; n.ConnectionRatePerNetwork < 100000 || n.ConnectionBurstPerNetwork < 100000 ||
		n.MaxConnectionsPerNetwork < 10000 || n.StatusBurstPerNetwork < 100000 || n.LoginBurstPerNetwork < 100000 {
		t.Errorf("network limits %+v refuse a loop of sessions from one network", n)
	}
}

// The upgrades mode's flags refuse what cannot run, before anything starts.
func TestUpgradesFlagMistakesExit2(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--mode", "handshakes", "--serve", "x"},
		{"run", "--mode", "upgrades", "--duration", "0s", "--serve", "x"},
		{"run", "--mode", "upgrades", "--transport", "tcp", "--token-file", "t", "--serve", "x"},
		{"run", "--mode", "upgrades", "--token-key", "k.pub", "--target", "127.0.0.1:1", "--target-pid", "1"},
		{"run", "--mode", "upgrades", "--idle", "10", "--serve", "x"},
		{"run", "--mode", "upgrades", "--token-cache", "64", "--serve", "x"},
	} {
		if code, _, stderr := mbbench(args...); code != 2 {
			t.Errorf("mbbench %s: exit %d, stderr %q; want 2", strings.Join(args, " "), code, stderr)
		}
	}
}
