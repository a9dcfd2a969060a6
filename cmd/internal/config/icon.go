package config

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/moonbridge/moonbridge/mc"
)

// MaxIconBytes bounds a server-list icon file: its base64 goes into the status JSON, which
// clients read only up to 32767 characters (16 KiB is 21848 of them, leaving room for the rest).
const MaxIconBytes = 16 << 10

// ErrIcon is an icon file that is not one the server list can show.
var ErrIcon = errors.New("not a server-list icon")

// ReadIcon reads the icon file at path (fallback.favicon, a route's status.icon, a maintenance
// icon) and returns the data URL the status JSON carries. The file must be a regular file (not
// a device, a pipe or a directory, even behind a symlink) of at most MaxIconBytes holding a
// 64x64 PNG; the error names the file and what is wrong with it.
func ReadIcon(path string) (string, error) {
	f, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxIconBytes+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("icon %s: %w", path, err)
	case len(data) > MaxIconBytes:
		return "", fmt.Errorf("icon %s: %w: larger than %d bytes", path, ErrIcon, MaxIconBytes)
	}
	url, err := mc.FaviconDataURL(data)
	if err != nil {
		return "", fmt.Errorf("icon %s: %w: %v", path, ErrIcon, err)
	}
	return url, nil
}

// openRegular opens path when it is a regular file, checked before the open (a FIFO would block
// it) and again on the opened file (it may have been swapped in between).
func openRegular(path string) (*os.File, error) {
	if info, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("icon: %w", err)
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("icon %s: %w: not a regular file (%s)", path, ErrIcon, info.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("icon: %w", err)
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("icon %s: %w: not a regular file", path, ErrIcon)
	}
	return f, nil
}
