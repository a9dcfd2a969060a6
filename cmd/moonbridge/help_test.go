package main

import (
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
	for _, args := range [][]string{{"serve", "--colour"}, {"client", "--colour"}, {"check-config"}, {"help", "launch"}} {
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
