package gossl

import (
	"crypto/tls"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestSelect(t *testing.T) {
	p, reason, err := Select("auto")
	if err != nil {
		t.Fatal(err)
	}
	// auto is BoringSSL in the cgo build and Go in the pure-Go build, and says why.
	want := map[bool]string{true: "boringssl", false: "go"}[BoringEnabled]
	if p.Name() != want || reason == "" {
		t.Errorf("auto chose %s (%q), want %s with a reason", p.Name(), reason, want)
	}
	// A reason in plain words: the record that decided it is a path of the repository, which a
	// binary's user does not have.
	if BoringEnabled && (!strings.Contains(reason, "self-test") || strings.Contains(reason, "bench/")) {
		t.Errorf("auto's reason %q does not say why in plain words", reason)
	}
	if !BoringEnabled && !strings.Contains(reason, "pure Go") {
		t.Errorf("auto's reason in the pure-Go build: %q", reason)
	}
	if p, _, err := Select("go"); err != nil || p.Name() != "go" {
		t.Errorf("go: %v %v", p, err)
	}
	_, _, err = Select("boringssl")
	if BoringEnabled && err != nil {
		t.Errorf("boringssl in the cgo build: %v", err)
	}
	if !BoringEnabled && (!errors.Is(err, ErrBoringNotCompiled) || !strings.Contains(err.Error(), "make build")) {
		t.Errorf("boringssl in the pure-Go build: %v", err)
	}
	if _, _, err := Select("openssl"); err == nil {
		t.Error("openssl accepted")
	}
}

func TestAutoFallsBackWhenTheSelfTestFails(t *testing.T) {
	failed := func() (Provider, error) { return nil, errors.New("BoringSSL self-test failed: boom") }
	p, reason := selectAuto(failed)
	if p.Name() != "go" || !strings.Contains(reason, "fell back") || !strings.Contains(reason, "boom") {
		t.Errorf("auto after a failed self-test: %s (%q), want go and the failure", p.Name(), reason)
	}
}

func TestClientTLSConfig(t *testing.T) {
	ec, _ := testCerts(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, ec.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, GoProvider(), testConfig(t), echo)
	cfg, err := ClientTLSConfig(ClientConfig{CAFile: caFile, ServerName: "a.test", MinVersion: "1.3"})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts.addr(), cfg) // dialed by address, verified as a.test
	roundTrip(t, c, []byte("hi"))
	if c.ConnectionState().Version != tls.VersionTLS13 {
		t.Error("min version 1.3 not applied")
	}
	bad, _ := ClientTLSConfig(ClientConfig{ServerName: "a.test"}) // system roots: must refuse
	if conn, err := tls.Dial("tcp", ts.addr(), bad); err == nil {
		conn.Close()
		t.Error("a self-signed server verified against the system roots")
	}
	var log strings.Builder
	insecure, _ := ClientTLSConfig(ClientConfig{Insecure: true, ServerName: "x", Logger: zerolog.New(&log)})
	if !insecure.InsecureSkipVerify || !strings.Contains(log.String(), "OFF") {
		t.Error("insecure did not disable verification loudly")
	}
	if _, err := ClientTLSConfig(ClientConfig{CAFile: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("missing CA file accepted")
	}
}
