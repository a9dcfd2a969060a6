package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// The tracing section: off by default, read from the file, and refused with its key when wrong.
func TestTracingSection(t *testing.T) {
	if d := Default().Tracing; d.Endpoint != "" || d.SampleRatio != 1 || d.ServiceName != "moonbridge" || d.QueueSize <= 0 || d.ExportTimeout <= 0 {
		t.Fatalf("defaults %+v: want tracing off, every join sampled once on, bounded", d)
	}
	dir := t.TempDir()
	headers, ca, badHeaders := filepath.Join(dir, "headers"), filepath.Join(dir, "ca.pem"), filepath.Join(dir, "bad")
	writeTestFile(t, headers, "# the collector's key\nX-Api-Key: s3cret\nAuthorization: Basic dXNlcjpwdw==\n\n")
	writeTestFile(t, badHeaders, "X-Api-Key s3cret\n")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der := testutil.SelfSigned(t, key, "collector.example")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse([]byte("tracing:\n  endpoint: https://collector.example:4318\n  ca_file: "+ca+
		"\n  headers_file: "+headers+"\n  sample_ratio: 0.25\n  trust_parent: true\n"), nil)
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Tracing.SampleRatio != 0.25 || !cfg.Tracing.TrustParent || cfg.Tracing.QueueSize != Default().Tracing.QueueSize {
		t.Errorf("read %+v", cfg.Tracing)
	}
	got, err := ReadHeaders(headers)
	if err != nil || len(got) != 2 || got["X-Api-Key"] != "s3cret" || got["Authorization"] != "Basic dXNlcjpwdw==" {
		t.Errorf("headers %v, %v", got, err)
	}
	for name, tc := range map[string]struct {
		change func(*Tracing)
		want   string
	}{
		"no scheme":      {func(c *Tracing) { c.Endpoint = "collector:4318" }, "tracing.endpoint"},
		"ratio over 1":   {func(c *Tracing) { c.Endpoint, c.SampleRatio = "http://127.0.0.1:4318", 1.5 }, "tracing.sample_ratio: 1.5 is not between 0 and 1"},
		"ca over http":   {func(c *Tracing) { c.Endpoint, c.CAFile = "http://127.0.0.1:4318", ca }, "tracing.ca_file: is for an https:// endpoint"},
		"no such ca":     {func(c *Tracing) { c.Endpoint, c.CAFile = "https://c.example", filepath.Join(dir, "none") }, "tracing.ca_file: cannot read"},
		"not a ca":       {func(c *Tracing) { c.Endpoint, c.CAFile = "https://c.example", headers }, "has no PEM certificate"},
		"bad headers":    {func(c *Tracing) { c.HeadersFile = badHeaders }, "tracing.headers_file: " + badHeaders + " line 1"},
		"no service":     {func(c *Tracing) { c.ServiceName = " " }, "tracing.service_name"},
		"no queue":       {func(c *Tracing) { c.QueueSize = 0 }, "tracing.queue_size: must be positive"},
		"no export time": {func(c *Tracing) { c.ExportTimeout = 0 }, "tracing.export_timeout: must be positive"},
	} {
		cfg := Default()
		tc.change(&cfg.Tracing)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
		if err := cfg.Validate(); err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the header's value: %v", name, err)
		}
	}
}
