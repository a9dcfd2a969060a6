package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An owner makes a key, issues a token in one command and checks it, for each algorithm.
func TestTokenKeygenIssueVerify(t *testing.T) {
	dir := t.TempDir()
	for _, alg := range []string{"ed25519", "ml-dsa-65", "ed25519+ml-dsa-65"} {
		base := filepath.Join(dir, "k-"+alg)
		if code, _, stderr := run("token", "keygen", "--alg", alg, "--out", base); code != 0 {
			t.Fatalf("keygen %s: exit %d: %s", alg, code, stderr)
		}
		if st, err := os.Stat(base + ".key"); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("private key: %v, %v", st, err)
		}
		if code, _, _ := run("token", "keygen", "--out", base); code != 1 {
			t.Fatalf("keygen over an existing key: exit %d, want 1", code)
		}
		code, token, stderr := run("token", "issue", "--key", base+".key", "--subject", "alice", "--audience", "play.example.net", "--scope", "lobby")
		if code != 0 {
			t.Fatalf("issue: exit %d: %s", code, stderr)
		}
		file := filepath.Join(dir, alg+".token")
		os.WriteFile(file, []byte(token), 0o600)
		code, out, stderr := run("token", "verify", "--keys", base+".pub", "--audience", "play.example.net", "--token-file", file)
		if code != 0 || !strings.Contains(out, "subject:    alice") || !strings.Contains(out, "opens:      lobby") ||
			!strings.Contains(out, "key id:     k-"+alg) || !strings.Contains(out, "algorithm:  "+alg) {
			t.Fatalf("verify: exit %d, %q, %q", code, out, stderr)
		}
		code, _, stderr = run("token", "verify", "--keys", base+".pub", strings.TrimSpace(token))
		if code != 1 || !strings.Contains(stderr, "audience") {
			t.Fatalf("verify with the wrong audience: exit %d, %q", code, stderr)
		}
	}
}

func TestTokenIssueExpiredIsRefused(t *testing.T) {
	base := filepath.Join(t.TempDir(), "k")
	run("token", "keygen", "--out", base)
	_, token, _ := run("token", "issue", "--key", base+".key", "--subject", "bob", "--not-before", "2020-01-01T00:00:00Z", "--ttl", "1h")
	code, _, stderr := run("token", "verify", "--keys", base+".pub", strings.TrimSpace(token))
	if code != 1 || !strings.Contains(stderr, "expired") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
}

func TestTokenUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"token"}, {"token", "mint"}, {"token", "keygen"}, {"token", "issue", "--key", "x.key"},
		{"token", "verify", "TOKEN"}, {"token", "verify", "--keys", "k.pub"}, {"token", "keygen", "--out", "x", "extra"},
	} {
		code, stdout, stderr := run(args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "Usage: moonbridge token") {
			t.Errorf("moonbridge %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	for _, sub := range tokenCommands() {
		code, stdout, _ := run("token", sub.name, "--help")
		if code != 0 || !strings.Contains(stdout, "Usage: moonbridge token "+sub.name) {
			t.Errorf("token %s --help: exit %d, %q", sub.name, code, stdout)
		}
	}
	if _, stdout, _ := run("token", "--help"); !strings.Contains(stdout, "keygen") || !strings.Contains(stdout, "verify") {
		t.Errorf("token --help does not list the subcommands: %q", stdout)
	}
}
