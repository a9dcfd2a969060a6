package bridge

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/relay/relaytest"
	"github.com/moonbridge/moonbridge/ws"
)

// testTimeout bounds every blocking step of a test, so a broken bridge fails instead of hanging.
const testTimeout = 60 * time.Second

func testLogger(t *testing.T) zerolog.Logger { return zerolog.New(zerolog.NewTestWriter(t)) }

// startBridge runs a bridge on 127.0.0.1:0 in front of remote. prepare, when not nil, runs
// before Start (to swap the dialer).
func startBridge(t *testing.T, remote ws.DialConfig, prepare func(*Bridge)) *Bridge {
	t.Helper()
	b, err := New(Config{Listen: "127.0.0.1:0", Remote: remote, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(b)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// selfSigned makes a certificate for names that is its own authority; a negative validFor
// makes one that has already expired.
func selfSigned(t *testing.T, validFor time.Duration, names ...string) gossl.PEMPair {
	t.Helper()
	pair, err := gossl.SelfSigned(names, validFor)
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

// trusting is the bridge's TLS config that trusts exactly the authority in ca, built the way
// `moonbridge client --ca FILE` builds it.
func trusting(t *testing.T, ca gossl.PEMPair) *tls.Config {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := gossl.ClientTLSConfig(gossl.ClientConfig{CAFile: file, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// bridgeTransports are ws, and wss with each TLS provider (one a build lacks skips).
var bridgeTransports = []struct {
	name     string
	protocol relay.Protocol
	provider string
}{{"ws", relay.WS, ""}, {"wss go", relay.WSS, "go"}, {"wss boringssl", relay.WSS, "boringssl"}}

// startServe runs `moonbridge serve` (relay.Server) on 127.0.0.1:0 for one protocol in front of
// backend; wss uses the named TLS provider with cert, and the test skips with the reason when
// this build lacks the provider.
func startServe(t *testing.T, protocol relay.Protocol, provider string, cert gossl.PEMPair, backend string) string {
	t.Helper()
	return startServeWith(t, protocol, provider, cert, backend, nil)
}

// startServeWith is startServe with mutate's changes to the relay's settings (nil: none).
func startServeWith(t *testing.T, protocol relay.Protocol, provider string, cert gossl.PEMPair, backend string, mutate func(*relay.Config)) string {
	t.Helper()
	cfg := relay.Config{
		Listeners: []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{protocol}}},
		Routes:    []relay.Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: backend}}}},
		WebSocket: ws.ServerConfig{Path: "/mc"},
		Fallback:  relay.DefaultFallback(),
		Logger:    testLogger(t),
	}
	if protocol == relay.WSS {
		cfg.TLS = tlsServer(t, provider, cert)
	}
	if mutate != nil {
		mutate(&cfg)
	}
	return relaytest.Start(t, cfg)
}

func tlsServer(t *testing.T, provider string, cert gossl.PEMPair) *gossl.Server {
	t.Helper()
	p, _, err := gossl.Select(provider)
	if err != nil {
		t.Skipf("TLS provider %s: %v", provider, err)
	}
	srv, err := p.NewServer(gossl.ServerConfig{Certificates: []gossl.CertSource{{PEM: cert}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// startBackend is a Minecraft server stand-in: an offline login (handshake and Login Start
// in; Login Success, Join Game and a position out), then it echoes every byte.
func startBackend(t *testing.T) string {
	t.Helper()
	return testutil.Serve(t, serveLoginThenEcho).Addr().String()
}

func serveLoginThenEcho(conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(testTimeout))
	// The game sends nothing after Login Start until it has the answer, so the reader holds
	// no bytes of the echo phase.
	name, err := login.ReadRequest(mc.NewFrameReader(conn, 4096))
	if err != nil {
		return
	}
	if _, err := conn.Write(login.AppendAnswer(nil, name)); err != nil {
		return
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := conn.Read(buf)
		if _, werr := conn.Write(buf[:n]); err != nil || werr != nil {
			return
		}
	}
}
