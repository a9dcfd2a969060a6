package gossl

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func writePair(t *testing.T, dir string, pair PEMPair) CertSource {
	t.Helper()
	src := CertSource{CertFile: filepath.Join(dir, "cert.pem"), KeyFile: filepath.Join(dir, "key.pem")}
	for path, data := range map[string][]byte{src.CertFile: pair.CertPEM, src.KeyFile: pair.KeyPEM} {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil { // into place, as certbot does
			t.Fatal(err)
		}
	}
	return src
}

func servedName(t *testing.T, addr string) string {
	cfg := clientConfig(t, "a.test")
	cfg.InsecureSkipVerify = true
	c := dial(t, addr, cfg)
	defer c.Close()
	if err := c.Handshake(); err != nil {
		t.Fatal(err)
	}
	return c.ConnectionState().PeerCertificates[0].DNSNames[0]
}

// fileServer serves the default test certificate from files in a fresh directory, and makes
// the certificate a reload should bring in.
func fileServer(t *testing.T, p Provider, watch time.Duration, next string) (*testServer, string, PEMPair) {
	first, _ := testCerts(t)
	second, err := SelfSigned([]string{next}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := testConfig(t)
	cfg.Certificates = []CertSource{writePair(t, dir, first)}
	cfg.WatchInterval = watch
	return startServer(t, p, cfg, echo), dir, second
}

func TestReloadSwapsCertificateAndKeepsSessions(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts, dir, second := fileServer(t, p, -1, "second.test")
		open := dial(t, ts.addr(), clientConfig(t, "a.test"))
		roundTrip(t, open, []byte("before"))

		writePair(t, dir, second)
		if err := ts.srv.Reload(); err != nil {
			t.Fatal(err)
		}
		if got := servedName(t, ts.addr()); got != "second.test" {
			t.Errorf("after reload a new handshake got %q", got)
		}
		roundTrip(t, open, pattern(100000)) // the session from before the reload still works

		if err := os.WriteFile(filepath.Join(dir, "cert.pem"), []byte("-----BEGIN CERTIFICATE-----\nbroken"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := ts.srv.Reload(); err == nil {
			t.Error("reloading a broken file succeeded")
		}
		if got := servedName(t, ts.addr()); got != "second.test" {
			t.Errorf("after a broken reload a new handshake got %q, want the old second.test", got)
		}
	})
}

func TestWatcherReloadsOnFileChange(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts, dir, second := fileServer(t, p, 20*time.Millisecond, "watched.test")
		writePair(t, dir, second)
		waitServed(t, ts.addr(), "watched.test")
	})
}

// A file changed back within one watch interval after a SIGHUP loaded another one is served
// again: the watcher compares the files with what was last loaded, not with what it last read.
func TestWatcherServesFileChangedBackAfterReload(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		first, _ := testCerts(t)
		ts, dir, second := fileServer(t, p, 300*time.Millisecond, "hup.test")
		writePair(t, dir, second)
		if err := ts.srv.Reload(); err != nil { // the SIGHUP
			t.Fatal(err)
		}
		writePair(t, dir, first) // changed back before the watcher looked
		waitServed(t, ts.addr(), "a.test")
	})
}

func waitServed(t *testing.T, addr, name string) {
	t.Helper()
	for deadline := time.Now().Add(testTimeout); servedName(t, addr) != name; {
		if time.Now().After(deadline) {
			t.Fatalf("no handshake got %s", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTicketKeysRotateWithoutLosingResumption: a ticket issued under one key still resumes after
// rotations while that key is among the TicketKeysKept that decrypt, and no longer once it has
// dropped out. With a 1 ns rotation every accepted connection rotates first, so connection i
// (from 0) meets the ticket of connection 0 i rotations later.
func TestTicketKeysRotateWithoutLosingResumption(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			cfg := testConfig(t)
			cfg.TicketRotation = time.Nanosecond
			ts, states := stateServer(t, p, cfg)
			client := clientConfig(t, "a.test")
			client.MinVersion, client.MaxVersion = v, v
			client.ClientSessionCache = &firstTicketCache{}
			for i := 0; i <= TicketKeysKept; i++ {
				wantResumed := i > 0 && i < TicketKeysKept
				c := dial(t, ts.addr(), client)
				roundTrip(t, c, []byte("ticket please")) // a read, so TLS 1.3 tickets arrive
				st := <-states
				if c.ConnectionState().DidResume != wantResumed || st.Resumed != wantResumed {
					t.Errorf("%s connection %d (%d rotations after the ticket): client DidResume %v, server Resumed %v, want %v",
						tls.VersionName(v), i, i, c.ConnectionState().DidResume, st.Resumed, wantResumed)
				}
				c.Close()
			}
		}
	})
}

// firstTicketCache keeps the first session a client is given and offers it on every later
// handshake, so each connection tries the same ticket.
type firstTicketCache struct {
	mu    sync.Mutex
	state *tls.ClientSessionState
}

func (c *firstTicketCache) Get(string) (*tls.ClientSessionState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state, c.state != nil
}

func (c *firstTicketCache) Put(_ string, cs *tls.ClientSessionState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == nil {
		c.state = cs
	}
}

// TestTicketKeysRotateOnSchedule: a new key takes over once the interval has passed, and only
// the newest TicketKeysKept are kept.
func TestTicketKeysRotateOnSchedule(t *testing.T) {
	keys := newTicketKeys(time.Hour, time.Unix(0, 0))
	first := keys.snapshot()[0]
	if keys.due(time.Unix(10, 0)) {
		t.Error("rotated before the interval")
	}
	for i := range TicketKeysKept + 2 {
		if !keys.due(time.Unix(int64(i+1)*3600, 0)) {
			t.Fatal("did not rotate after the interval")
		}
	}
	got := keys.snapshot()
	if len(got) != TicketKeysKept || got[0] == first || got[1] == got[0] {
		t.Errorf("after rotations: %d keys", len(got))
	}
}
