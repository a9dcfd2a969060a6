package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// check-config refuses what serve refuses, also what only loading shows: a certificate file
// that is not PEM, a favicon that is not a PNG (issue 13, defect 8), Redis' authority that is
// not PEM (issue 42).
func TestCheckConfigLoadsWhatServeLoads(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	writeFile(t, junk, []byte("not PEM, not PNG"))
	for name, tc := range map[string]struct{ yaml, want string }{
		"certificate": {"tls:\n  cert: " + junk + "\n  key: " + junk + "\n", "tls: "},
		"favicon":     {"fallback:\n  favicon: " + junk + "\n", "fallback.favicon"},
		"empty":       {"", "the file is empty"},
		"port":        {"listeners:\n  - listen: 127.0.0.1:70000\n    protocols: [ws]\n", "line 2: listeners[0].listen"},
		"redis ca": {"replicas:\n  enabled: true\n  tls:\n    enabled: true\n    ca_file: " + junk + "\n",
			"replicas.tls.ca_file: " + junk + " holds no PEM certificate"},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, name+".yml")
			writeFile(t, file, []byte(tc.yaml))
			code, stdout, stderr := run("check-config", file)
			if code != 1 || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
}
