package cliflags

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func newTestFlags() (*FlagSet, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	fs := New("tool run", "[flags]", "Run the tool.", &stdout, &stderr)
	fs.Int("count", 1, "how many")
	return fs, &stdout, &stderr
}

func TestHelpGoesToStdout(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "-help"} {
		fs, stdout, stderr := newTestFlags()
		err := fs.Parse([]string{arg})
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s: err %v, want flag.ErrHelp", arg, err)
		}
		if !strings.HasPrefix(stdout.String(), "Usage: tool run [flags]\n\nRun the tool.\n\nFlags:\n  -count") || stderr.Len() != 0 {
			t.Errorf("%s: stdout %q stderr %q", arg, stdout, stderr)
		}
	}
}

func TestMistakesGoToStderr(t *testing.T) {
	fs, stdout, stderr := newTestFlags()
	if err := fs.Parse([]string{"--colour"}); err != ErrUsage {
		t.Errorf("unknown flag: err %v, want ErrUsage", err)
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "flag provided but not defined: -colour") ||
		!strings.Contains(stderr.String(), "Usage: tool run") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	fs, stdout, stderr = newTestFlags()
	if err := fs.UsageError(); err != ErrUsage || stdout.Len() != 0 || !strings.Contains(stderr.String(), "Usage: tool run") {
		t.Errorf("UsageError: %v, stdout %q stderr %q", err, stdout, stderr)
	}
}
