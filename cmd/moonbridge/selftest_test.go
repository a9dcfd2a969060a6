package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/buildinfo"
)

// The dist checks read these lines, so the test pins them for both flavours.
func TestVersionCheckTLSRunsTheFlavoursProvider(t *testing.T) {
	want := "tls self-test: go ok"
	if buildinfo.Flavour() == "boringssl" {
		want = "tls self-test: boringssl ok"
	}
	code, stdout, stderr := run("version", "--check-tls")
	if code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "flavour:       "+buildinfo.Flavour()) {
		t.Fatalf("version --check-tls: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = run("version", "--json", "--check-tls")
	var info buildinfo.Info
	if code != 0 || json.Unmarshal([]byte(stdout), &info) != nil || !strings.Contains(stderr, want) {
		t.Fatalf("version --json --check-tls: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestVersionWithoutCheckTLSSaysNothingAboutIt(t *testing.T) {
	if _, stdout, _ := run("version"); strings.Contains(stdout, "self-test") {
		t.Errorf("plain version ran the self-test: %q", stdout)
	}
}
