// Package atomicfile writes a file whole: a new file beside it, synced, then renamed over it,
// and the rename made durable, so that a crash leaves the old file or the new one, never half
// of one. Standard library only.
package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
)

// Write replaces path with data. The new file is made with mode 0600 (os.CreateTemp's): what
// moonbridge writes this way (its state, its bans) is for its owner alone.
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing by that name to remove
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable. Windows cannot open a directory to sync it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
