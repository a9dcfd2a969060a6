package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/logging"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

// A SIGHUP whose certificate reload fails logs the failure once (issue 12: gossl and the
// signal handler both logged it).
func TestFailedHangupReloadIsLoggedOnce(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	pair, err := gossl.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, certFile, pair.CertPEM)
	writeFile(t, keyFile, pair.KeyPEM)
	var logs testutil.SyncBuffer
	log, err := logging.New(&logs, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	server, err := gossl.GoProvider().NewServer(gossl.ServerConfig{
		Certificates:  []gossl.CertSource{{CertFile: certFile, KeyFile: keyFile}},
		WatchInterval: -1, // only the SIGHUP reloads
		Logger:        log,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	writeFile(t, certFile, []byte("not a certificate"))
	reloadOnHangup(server, log)()
	if n := strings.Count(logs.String(), `"level":"error"`); n != 1 {
		t.Errorf("a failed reload logged %d error lines, want 1:\n%s", n, logs.String())
	}
}

func TestHangupWithoutCertificatesSaysNothingReloaded(t *testing.T) {
	var logs testutil.SyncBuffer
	log, err := logging.New(&logs, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	reloadOnHangup(nil, log)()
	if !strings.Contains(logs.String(), "SIGHUP: nothing reloaded") {
		t.Errorf("no line for a SIGHUP without certificates: %q", logs.String())
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
