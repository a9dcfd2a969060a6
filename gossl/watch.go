package gossl

import (
	"crypto/sha256"
	"os"
	"slices"
	"time"
)

// watcher polls the certificate files and reloads when their content changes. Polling every few
// seconds is cheap (a few KB read and hashed), survives the rename-into-place that certbot and
// Kubernetes secrets do (which inotify watches lose), and needs no dependency. It compares
// content, not size and mtime: a new key has the old one's size, and on coarse-clock file
// systems two writes can share an mtime.
type watcher struct {
	done    chan struct{}
	stopped chan struct{}
}

// fileStamp is a hash of a file's content; the zero value stands for an unreadable file.
type fileStamp [sha256.Size]byte

// startWatcher watches files against the content s last tried to load (Server.tried, taken
// before each load, so a change made while loading is not missed).
func startWatcher(s *Server, files []string, every time.Duration) *watcher {
	w := &watcher{done: make(chan struct{}), stopped: make(chan struct{})}
	if every < 0 || len(files) == 0 {
		close(w.stopped)
		return w
	}
	go w.run(s, files, every)
	return w
}

func watchedFiles(sources []CertSource) []string {
	var files []string
	for _, src := range sources {
		if src.CertFile != "" {
			files = append(files, src.CertFile, src.KeyFile)
		}
	}
	return files
}

// run reloads when the files differ from what the last load read; a broken file is tried once,
// not at every tick, since that load's attempt recorded it.
func (w *watcher) run(s *Server, files []string, every time.Duration) {
	defer close(w.stopped)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-tick.C:
		}
		if !slices.Equal(stamps(files), *s.tried.Load()) {
			s.log.Info().Strs("files", files).Msg("TLS certificate files changed; reloading")
			_ = s.Reload() // Reload logs its own failure and keeps the old certificate
		}
	}
}

func stamps(files []string) []fileStamp {
	out := make([]fileStamp, len(files))
	for i, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			out[i] = sha256.Sum256(data)
		}
	}
	return out
}

func (w *watcher) stop() {
	select {
	case <-w.done:
	default:
		close(w.done)
	}
	<-w.stopped
}
