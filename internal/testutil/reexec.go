package testutil

import (
	"os"
	"os/exec"
)

// Reexec is a command that runs this test binary again with args, and env ("NAME=VALUE") added
// to the environment: a child process a test needs (the program's main, a test under a limit
// that must not touch the others), which the binary's TestMain or the test itself recognises by
// that environment.
func Reexec(args []string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}
