package gossl

import (
	"bytes"
	"crypto/tls"
	"io"
	"slices"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// stateServer starts an echo server that reports each connection's state after its handshake.
func stateServer(t *testing.T, p Provider, cfg ServerConfig) (*testServer, chan ConnState) {
	states := make(chan ConnState, 16)
	ts := startServer(t, p, cfg, func(c Conn) {
		if err := c.HandshakeContext(t.Context()); err != nil {
			return
		}
		states <- c.State()
		echo(c)
	})
	return ts, states
}

func TestHandshakeEverySuite(t *testing.T) {
	type row struct {
		name       string
		version    uint16
		suite      uint16 // 0: TLS 1.3, whose suite the Go client does not let us pick
		serverName string
	}
	rows := []row{{"tls13", tls.VersionTLS13, 0, "a.test"}}
	for _, s := range goCipherSuites {
		sni := "a.test"
		if slices.Contains([]uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256}, s) {
			sni = "rsa.test"
		}
		rows = append(rows, row{tls.CipherSuiteName(s), tls.VersionTLS12, s, sni})
	}
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts, states := stateServer(t, p, testConfig(t))
		for _, r := range rows {
			t.Run(r.name, func(t *testing.T) {
				cfg := clientConfig(t, r.serverName)
				cfg.MinVersion, cfg.MaxVersion = r.version, r.version
				if r.suite != 0 {
					cfg.CipherSuites = []uint16{r.suite}
				}
				c := dial(t, ts.addr(), cfg)
				roundTrip(t, c, pattern(5000))
				st := <-states
				cs := c.ConnectionState()
				if st.Version != r.version || st.CipherSuite != cs.CipherSuite || st.ALPN != "http/1.1" ||
					st.ServerName != r.serverName || st.Provider != p.Name() || st.Resumed {
					t.Errorf("server state %+v, client saw version %x suite %x", st, cs.Version, cs.CipherSuite)
				}
				if r.suite != 0 && cs.CipherSuite != r.suite {
					t.Errorf("negotiated %s", tls.CipherSuiteName(cs.CipherSuite))
				}
			})
		}
	})
}

func TestMinVersion13RefusesTLS12Client(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		cfg := testConfig(t)
		cfg.MinVersion = "1.3"
		ts := startServer(t, p, cfg, echo)
		c := clientConfig(t, "a.test")
		c.MaxVersion = tls.VersionTLS12
		if conn, err := tls.Dial("tcp", ts.addr(), c); err == nil {
			conn.Close()
			t.Fatal("a TLS 1.2-only client completed against min version 1.3")
		}
	})
}

func TestSNIPicksCertificate(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts, states := stateServer(t, p, testConfig(t))
		for _, name := range []string{"rsa.test", "a.test", ""} {
			cfg := clientConfig(t, name)
			if name == "" {
				cfg.InsecureSkipVerify = true // no SNI at all: the default certificate
			}
			c := dial(t, ts.addr(), cfg)
			roundTrip(t, c, []byte("x"))
			<-states
			leaf := c.ConnectionState().PeerCertificates[0]
			want := "a.test"
			if name == "rsa.test" {
				want = "rsa.test"
			}
			if leaf.DNSNames[0] != want {
				t.Errorf("SNI %q got certificate for %v", name, leaf.DNSNames)
			}
		}
	})
}

func TestResumption(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts, states := stateServer(t, p, testConfig(t))
		for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			cfg := clientConfig(t, "a.test")
			cfg.MinVersion, cfg.MaxVersion = v, v
			cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
			for i, wantResumed := range []bool{false, true} {
				c := dial(t, ts.addr(), cfg)
				roundTrip(t, c, []byte("ticket please")) // a read, so TLS 1.3 tickets arrive
				st := <-states
				if c.ConnectionState().DidResume != wantResumed || st.Resumed != wantResumed {
					t.Errorf("%s connection %d: client DidResume %v, server Resumed %v, want %v",
						tls.VersionName(v), i, c.ConnectionState().DidResume, st.Resumed, wantResumed)
				}
				c.Close()
			}
		}
	})
}

func TestCloseNotifyBothWays(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		got := make(chan error, 1)
		ts := startServer(t, p, testConfig(t), func(c Conn) {
			_, err := io.ReadAll(c) // ends at the client's close_notify
			got <- err
			_, _ = c.Write([]byte("bye"))
		})
		c := dial(t, ts.addr(), clientConfig(t, "a.test"))
		if _, err := c.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		if err := c.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Errorf("server read after client close_notify: %v, want a clean EOF", err)
		}
		rest, err := io.ReadAll(c) // the server's Close sends close_notify
		if err != nil || !bytes.Equal(rest, []byte("bye")) {
			t.Errorf("client read %q, %v; want bye and a clean EOF", rest, err)
		}
	})
}

func TestKeyLogWritesSecrets(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		var log testutil.SyncBuffer
		cfg := testConfig(t)
		cfg.KeyLog = &log
		ts := startServer(t, p, cfg, echo)
		roundTrip(t, dial(t, ts.addr(), clientConfig(t, "a.test")), []byte("x"))
		if !bytes.Contains(log.Bytes(), []byte("CLIENT_HANDSHAKE_TRAFFIC_SECRET ")) {
			t.Errorf("key log holds %q", log.Bytes())
		}
	})
}
