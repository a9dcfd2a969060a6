package main

import (
	"bytes"
	"strings"
	"testing"
)

func mbbench(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = dispatch(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// --help on mbbench and its commands prints the usage on stdout and exits 0 (issue 13, defect
// 12: `mbbench --help` printed nothing and exited 2).
func TestHelpIsOnStdout(t *testing.T) {
	cases := [][]string{{"--help"}, {"-h"}, {"help"}}
	for _, c := range commands {
		cases = append(cases, []string{c.name, "--help"}, []string{c.name, "-h"})
	}
	for _, args := range cases {
		code, stdout, stderr := mbbench(args...)
		if code != 0 || !strings.Contains(stdout, "Usage: mbbench") || stderr != "" {
			t.Errorf("mbbench %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

func TestCommandLineMistakesExit2OnStderr(t *testing.T) {
	for _, args := range [][]string{{}, {"launch"}, {"run", "--colour"}, {"ab", "--pairs", "0", "--variant", "a=--window=1"}} {
		code, stdout, stderr := mbbench(args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("mbbench %s: exit %d, stdout %q, stderr %q; want 2 and only stderr", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
