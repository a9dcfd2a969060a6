package gossl

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/rs/zerolog"
)

// testTimeout bounds every blocking step; tests never assert on durations.
const testTimeout = 20 * time.Second

// forEachProvider runs the same test under both providers, BoringSSL once with each record
// layer; in a pure-Go build the boringssl rows skip with their reason.
func forEachProvider(t *testing.T, test func(t *testing.T, p Provider)) {
	t.Helper()
	t.Run("go", func(t *testing.T) { test(t, GoProvider()) })
	for _, layer := range []RecordLayer{RecordLayerSSL, RecordLayerAEAD} {
		name := "boringssl"
		if layer == RecordLayerAEAD {
			name = "boringssl-aead"
		}
		t.Run(name, func(t *testing.T) {
			p, err := boringProvider()
			if err != nil {
				t.Skip("boringssl is not in this build (pure Go): run `make native` and test with -tags boringssl")
			}
			test(t, withRecordLayer(p, layer))
		})
	}
}

// layeredProvider is a provider whose servers use one record layer whatever their config says.
type layeredProvider struct {
	Provider
	layer RecordLayer
}

func withRecordLayer(p Provider, layer RecordLayer) Provider { return layeredProvider{p, layer} }

func (p layeredProvider) NewServer(cfg ServerConfig) (*Server, error) {
	cfg.RecordLayer = p.layer
	return p.Provider.NewServer(cfg)
}

var (
	certsOnce sync.Once
	ecdsaPair PEMPair // names a.test, 127.0.0.1
	rsaPair   PEMPair // names rsa.test
)

func testCerts(t testing.TB) (ecdsa, rsa PEMPair) {
	certsOnce.Do(func() {
		var err error
		if ecdsaPair, err = SelfSigned([]string{"a.test", "127.0.0.1"}, time.Hour); err != nil {
			t.Fatal(err)
		}
		rsaPair = rsaSelfSigned(t, "rsa.test")
	})
	return ecdsaPair, rsaPair
}

func rsaSelfSigned(t testing.TB, name string) PEMPair {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der := testutil.SelfSigned(t, key, name)
	return PEMPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
	}
}

// testConfig serves the ECDSA certificate by default and the RSA one for SNI rsa.test.
func testConfig(t testing.TB) ServerConfig {
	ec, rs := testCerts(t)
	return ServerConfig{
		Certificates:  []CertSource{{PEM: ec}, {PEM: rs}},
		WatchInterval: -1,
		Logger:        zerolog.New(zerolog.NewTestWriter(t)),
	}
}

// clientConfig trusts both test certificates.
func clientConfig(t testing.TB, serverName string) *tls.Config {
	ec, rs := testCerts(t)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ec.CertPEM)
	roots.AppendCertsFromPEM(rs.CertPEM)
	return &tls.Config{RootCAs: roots, ServerName: serverName, NextProtos: []string{"http/1.1"}}
}

// testServer listens on loopback and hands each wrapped connection to handle.
type testServer struct {
	srv   *Server
	ln    net.Listener
	conns chan Conn
}

func startServer(t testing.TB, p Provider, cfg ServerConfig, handle func(Conn)) *testServer {
	t.Helper()
	srv, err := p.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{srv: srv, ln: ln, conns: make(chan Conn, 64)}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait(); srv.Close() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			raw, err := ln.Accept()
			if err != nil {
				return
			}
			c := srv.Wrap(raw)
			_ = c.SetDeadline(time.Now().Add(testTimeout))
			wg.Add(1)
			go func() { defer wg.Done(); defer c.Close(); handle(c) }()
		}
	}()
	return ts
}

func (ts *testServer) addr() string { return ts.ln.Addr().String() }

// echo copies everything back until the client closes.
func echo(c Conn) { _, _ = io.Copy(c, c) }

func dial(t testing.TB, addr string, cfg *tls.Config) *tls.Conn {
	t.Helper()
	c, err := dialTLS(addr, cfg)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// dialTLS is dial for goroutines, which may not call t.Fatal: the caller reports the error and
// closes the connection.
func dialTLS(addr string, cfg *tls.Config) (*tls.Conn, error) {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: testTimeout}, "tcp", addr, cfg)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(testTimeout))
	return c, nil
}

// roundTrip writes data and reads it back through an echo server, byte for byte.
func roundTrip(t testing.TB, c net.Conn, data []byte) {
	t.Helper()
	errc := make(chan error, 1)
	go func() { _, err := c.Write(data); errc <- err }()
	got := make([]byte, len(data))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("read back %d bytes: %v", len(data), err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("write %d bytes: %v", len(data), err)
	}
	for i := range data {
		if got[i] != data[i] {
			t.Fatalf("byte %d of %d differs", i, len(data))
		}
	}
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i>>8)
	}
	return b
}

// countingConn counts socket writes.
type countingConn struct {
	net.Conn
	mu     sync.Mutex
	writes int
}

func (c *countingConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *countingConn) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}
