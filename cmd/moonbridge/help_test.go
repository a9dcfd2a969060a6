package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --help, on moonbridge and on every command, prints the usage on stdout and exits 0; a
// mistake prints on stderr and exits 2 (issue 13, defect 12: serve and client printed their
// help on stderr).
func TestHelpIsOnStdoutEverywhere(t *testing.T) {
	cases := [][]string{{"--help"}, {"-h"}, {"help"}}
	for _, c := range commands() {
		cases = append(cases, []string{c.name, "--help"}, []string{c.name, "-h"}, []string{"help", c.name})
	}
	for _, args := range cases {
		code, stdout, stderr := run(args...)
		if code != 0 || !strings.Contains(stdout, "Usage: moonbridge") || stderr != "" {
			t.Errorf("moonbridge %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	for _, args := range [][]string{{"serve", "--colour"}, {"client", "--colour"}, {"check-config"}, {"help", "launch"},
		{"serve", "version"}, {"client", "wss://play.example.net/mc"}} {
		code, stdout, stderr := run(args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("moonbridge %s: exit %d, stdout %q, stderr %q; want 2 and only stderr", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

func TestVersionFlagIsTheVersionCommand(t *testing.T) {
	_, want, _ := run("version")
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		code, stdout, stderr := run(args...)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("moonbridge %s: exit %d, stdout %q, stderr %q; want %q", args[0], code, stdout, stderr, want)
		}
	}
	if code, stdout, _ := run("--version", "--json"); code != 0 || !strings.HasPrefix(stdout, "{") {
		t.Errorf("moonbridge --version --json: exit %d, %q", code, stdout)
	}
}

// Every flag of every command's --help is in the owner documents (README.md, docs/): a flag no
// document names is one nobody finds.
func TestEveryFlagIsDocumented(t *testing.T) {
	docs := ownerDocs(t)
	for _, args := range helpCommands() {
		_, usage, _ := run(append(args, "--help")...)
		for _, name := range flagNames(usage) {
			if !strings.Contains(docs, "--"+name) {
				t.Errorf("moonbridge %s: --%s is in --help but in no document under README.md or docs/", strings.Join(args, " "), name)
			}
		}
	}
}

// helpCommands are the commands with flags, token's subcommands among them.
func helpCommands() [][]string {
	var out [][]string
	for _, c := range commands() {
		out = append(out, []string{c.name})
	}
	for _, sub := range []string{"keygen", "issue", "verify"} {
		out = append(out, []string{"token", sub})
	}
	return out
}

// flagNames reads the flag package's usage lines ("  -listen ADDR").
func flagNames(usage string) []string {
	var names []string
	for _, line := range strings.Split(usage, "\n") {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			name, _, _ := strings.Cut(rest, " ")
			names = append(names, strings.TrimPrefix(name, "-"))
		}
	}
	return names
}

func ownerDocs(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no documents under docs/: %v", err)
	}
	var all strings.Builder
	for _, f := range append(files, "../../README.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(data)
	}
	return all.String()
}
