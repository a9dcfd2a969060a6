package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// callerConfig reports whether --serve-arg gives moonbridge a config file of the caller's,
// which then wins over one mbbench would write.
func (f *targetFlags) callerConfig() bool {
	return slices.ContainsFunc(f.serveArgs, func(a string) bool { return strings.HasPrefix(strings.TrimLeft(a, "-"), "config") })
}

// tempConfigDir is a directory for the moonbridge config mbbench writes; remove it after the run.
func tempConfigDir() (string, error) { return os.MkdirTemp("", "mbbench-") }

// writeConfig writes text as dir/moonbridge.yml and returns its path.
func writeConfig(dir, text string) (string, error) {
	path := filepath.Join(dir, "moonbridge.yml")
	return path, os.WriteFile(path, []byte(text), 0o600)
}
