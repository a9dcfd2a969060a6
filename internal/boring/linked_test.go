package boring

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// builtRevision reads the revision CMake recorded in build/boringssl.env when it built the shim.
func builtRevision(t *testing.T) string {
	t.Helper()
	path := filepath.Join("..", "..", "build", "boringssl.env")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the cgo build needs %s from `make native`: %v", path, err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if rev, ok := strings.CutPrefix(scanner.Text(), "REVISION="); ok {
			return rev
		}
	}
	t.Fatalf("%s has no REVISION line", path)
	return ""
}

func TestLinkedBoringSSLIsTheOneWeBuilt(t *testing.T) {
	if !Enabled {
		t.Skip("cgo-only: this build has no BoringSSL (build tags boringssl,cgo)")
	}
	info := LinkedInfo()
	if want := builtRevision(t); info.Revision != want {
		t.Errorf("linked BoringSSL revision %q, build/boringssl.env says %q", info.Revision, want)
	}
	if info.VersionText != "BoringSSL" {
		t.Errorf("OpenSSL_version = %q, want BoringSSL (is another libssl linked?)", info.VersionText)
	}
	if info.APIVersion <= 0 || info.Source == "" {
		t.Errorf("incomplete info %+v", info)
	}
}
