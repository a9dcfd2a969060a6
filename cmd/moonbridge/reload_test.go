package main

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/logging"
	"github.com/moonbridge/moonbridge/cmd/internal/routebook"
	"github.com/moonbridge/moonbridge/gossl"
	synctest "github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/ws"
)

// startReloader runs a relay from cfg (listening on 127.0.0.1:0) with a reloader whose file
// reads give next(); it returns the reloader and its JSON log.
func startReloader(t *testing.T, cfg config.Config, next func() (config.Config, error)) (*configReloader, *synctest.SyncBuffer) {
	t.Helper()
	var logs synctest.SyncBuffer
	log, err := logging.New(&logs, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	book := routebook.New(log, nil, nil)
	store, err := openBans(cfg.BansFile, log)
	if err != nil {
		t.Fatal(err)
	}
	srv, tlsServer, err := newRelay(cfg, book, store.list, nil, nil, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	book.Attach(srv)
	r := &configReloader{reread: next, srv: srv, book: book, bans: store, log: log, reloads: newReloadCounter(), current: cfg, tls: tlsServer}
	t.Cleanup(func() { srv.Close(); r.close() })
	return r, &logs
}

func localConfig() config.Config {
	cfg := config.Default()
	cfg.Listeners[0].Addr = "127.0.0.1:0"
	return cfg
}

// A SIGHUP whose certificate files are broken keeps the old certificates, logs that once (issue
// 12: gossl and the signal handler both logged it), and applies the rest of the file.
func TestHangupWithBrokenCertificateLogsOnce(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	pair, err := gossl.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, certFile, pair.CertPEM)
	writeFile(t, keyFile, pair.KeyPEM)
	cfg := localConfig()
	cfg.TLS.Cert, cfg.TLS.Key = certFile, keyFile
	next := cfg
	next.Routes = []config.Route{{Hosts: []string{"*"}, Backends: []string{"127.0.0.1:2"}}}
	r, logs := startReloader(t, cfg, func() (config.Config, error) { return next, nil })
	writeFile(t, certFile, []byte("not a certificate"))
	r.reload()
	if n := strings.Count(logs.String(), `"level":"error"`); n != 1 {
		t.Errorf("a failed certificate reload logged %d error lines, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), `"changed":["routes"]`) {
		t.Errorf("the route change was not applied beside the certificates:\n%s", logs.String())
	}
}

// A file that does not load changes nothing, is logged once and counted as failed; one that
// loads is counted ok and its changes named in one line.
func TestHangupCountsAndNamesChanges(t *testing.T) {
	cfg := localConfig()
	var next config.Config
	var loadErr error
	r, logs := startReloader(t, cfg, func() (config.Config, error) { return next, loadErr })
	loadErr = os.ErrNotExist
	r.reload()
	next, loadErr = cfg, nil
	next.Limits.MaxConnections = 5
	next.Log.Level = "debug"
	next.Listeners = append(slices.Clone(next.Listeners), relay.Listener{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.WS}})
	r.reload() // two listeners on one address: refused
	next.Listeners = next.Listeners[:1]
	r.reload()
	if ok, failed := reloadCount(t, r, "ok"), reloadCount(t, r, "failed"); ok != 1 || failed != 2 {
		t.Errorf("reloads ok %v, failed %v; want 1 and 2", ok, failed)
	}
	if n := strings.Count(logs.String(), "SIGHUP: configuration not reloaded"); n != 2 {
		t.Errorf("%d lines for 2 failed reloads:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), `"changed":["log","limits"]`) || !strings.Contains(logs.String(), `"need_restart":["log"]`) {
		t.Errorf("the reload line does not name what changed:\n%s", logs.String())
	}
	if got := r.srv.Health(); !got.Ready {
		t.Errorf("health after the reloads: %+v", got)
	}
}

// reloadCount reads moonbridge_config_reloads_total{result}.
func reloadCount(t *testing.T, r *configReloader, result string) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(r.reloads)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range families[0].GetMetric() {
		if m.GetLabel()[0].GetValue() == result {
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no series for result %q", result)
	return 0
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A changed tls section gets a new TLS server: new wss players get its settings, a wss session
// that ran before goes on.
func TestHangupReplacesChangedTLS(t *testing.T) {
	cfg := localConfig()
	cfg.Routes[0].Backends = []string{taggedBackend(t, 'A')}
	next := cfg
	next.TLS.MinVersion = "1.3"
	r, logs := startReloader(t, cfg, func() (config.Config, error) { return next, nil })
	addr := r.srv.Addrs()[0].String()
	running := dialWSS(t, addr, tls.VersionTLS12)
	r.reload()
	if !strings.Contains(logs.String(), `"changed":["tls"]`) {
		t.Fatalf("no reload line naming tls:\n%s", logs.String())
	}
	if conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12}); err == nil {
		conn.Close()
		t.Error("a TLS 1.2 client was accepted after tls.min_version became 1.3")
	}
	dialWSS(t, addr, tls.VersionTLS13)
	echoes(t, running, "after the TLS change ")
}

// dialWSS opens a wss session with TLS up to maxVersion and checks its backend's tag.
func dialWSS(t *testing.T, addr string, maxVersion uint16) net.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := ws.Dial(ctx, ws.DialConfig{URL: "wss://" + addr + "/mc",
		TLSConfig: &tls.Config{InsecureSkipVerify: true, MaxVersion: maxVersion}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.Write(loginHandshake)
	got := make([]byte, 1+len(loginHandshake))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, got); err != nil || got[0] != 'A' {
		t.Fatalf("wss session: %q, %v", got, err)
	}
	return conn
}
