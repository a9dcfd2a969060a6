package pkgmanager

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// kind is one package manager's manifests.
type kind struct {
	name    string   // its folder under dist/
	targets []Target // the archives its manifests point at
	// main is the manifest that holds the downloads, as a path under dist/.
	main  func(Settings) string
	write func(Settings, map[Target]Download) (map[string][]byte, error)
	read  func(dir string) (parsed, error)
}

// parsed is what reading one kind's manifests found.
type parsed struct {
	path      string // the manifest that holds the downloads, under dist/
	version   string
	downloads []Download
}

var kinds = []kind{scoop, winget, homebrew}

// Write writes every manifest into dir from dir's SHA256SUMS and returns their paths under dir.
// It first removes what an earlier Write left there (a winget folder under another identifier).
// An archive a manifest needs that SHA256SUMS does not list, or that is not in dir, is a
// *MissingArchiveError; nothing is written then.
func Write(dir string, s Settings) ([]string, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	sums, err := ReadSums(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, k := range kinds {
		downloads, err := k.downloads(dir, sums, s)
		if err != nil {
			return nil, err
		}
		out, err := k.write(s, downloads)
		if err != nil {
			return nil, err
		}
		maps.Copy(files, out)
	}
	for _, k := range kinds {
		if err := os.RemoveAll(filepath.Join(dir, k.name)); err != nil {
			return nil, err
		}
	}
	names := slices.Sorted(maps.Keys(files))
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// downloads is where each of k's archives will be, with its hash from SHA256SUMS.
func (k kind) downloads(dir string, sums Sums, s Settings) (map[Target]Download, error) {
	downloads := map[Target]Download{}
	for _, t := range k.targets {
		file := t.Archive(s.Version)
		sum, ok := sums[file]
		if !ok {
			return nil, &MissingArchiveError{k.main(s), file, SumsFile}
		}
		if _, err := os.Stat(filepath.Join(dir, file)); errors.Is(err, fs.ErrNotExist) {
			return nil, &MissingArchiveError{k.main(s), file, dir}
		} else if err != nil {
			return nil, err
		}
		downloads[t] = Download{Target: t, URL: s.URL + "/" + file, SHA256: sum, Binary: t.Binary(s.Version)}
	}
	return downloads, nil
}
