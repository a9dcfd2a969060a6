package pkgmanager

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Checked is one manifest that Check found right.
type Checked struct {
	Manifest string   // under dist/
	Targets  []Target // the archives it points at
	Base     string   // the URL they are all under
}

// Check reads every manifest in dir with a real parser (encoding/json, YAML, line by line for
// the Ruby formula) and holds it to dir's SHA256SUMS and archives: the release's version, one
// download for each archive its package manager needs, each URL ending in that archive's name
// under one base, each hash equal to SHA256SUMS's, each archive in dir with that hash, holding
// only its one folder and in it the binary the manifest installs.
func Check(dir, version string) ([]Checked, error) {
	sums, err := ReadSums(dir)
	if err != nil {
		return nil, err
	}
	c := checker{dir: dir, sums: sums, version: version, archives: map[string]error{}}
	var checked []Checked
	for _, k := range kinds {
		p, err := k.read(dir)
		if err != nil {
			return nil, err
		}
		base, err := c.manifest(k, p)
		if err != nil {
			return nil, err
		}
		checked = append(checked, Checked{Manifest: p.path, Targets: k.targets, Base: base})
	}
	return checked, nil
}

type checker struct {
	dir, version string
	sums         Sums
	archives     map[string]error // each archive's verdict, as two manifests share the Windows zips
}

// manifest checks one kind's downloads and returns their base URL.
func (c checker) manifest(k kind, p parsed) (string, error) {
	if p.version != c.version {
		return "", &ManifestError{p.path, fmt.Sprintf("version %q, the release is %q", p.version, c.version)}
	}
	found := map[Target]Download{}
	for _, d := range p.downloads {
		if _, twice := found[d.Target]; twice {
			return "", &ManifestError{p.path, "two downloads for " + d.Target.String()}
		}
		found[d.Target] = d
	}
	var base string
	for _, t := range k.targets {
		d, ok := found[t]
		if !ok {
			return "", &ManifestError{p.path, "no download for " + t.String()}
		}
		b, err := c.download(p.path, d)
		if err != nil {
			return "", err
		}
		if base != "" && b != base {
			return "", &ManifestError{p.path, fmt.Sprintf("downloads from %s and from %s", base, b)}
		}
		base = b
	}
	return base, nil
}

// download checks one download and returns the URL it is under.
func (c checker) download(manifest string, d Download) (string, error) {
	file := d.Target.Archive(c.version)
	base, ok := strings.CutSuffix(d.URL, "/"+file)
	if !ok || checkURL(d.URL) != nil {
		return "", &ManifestError{manifest, fmt.Sprintf("%s: URL %q: want an http(s) URL that ends in /%s", d.Target, d.URL, file)}
	}
	want, ok := c.sums[file]
	if !ok {
		return "", &MissingArchiveError{manifest, file, SumsFile}
	}
	if d.SHA256 != want {
		return "", &HashMismatchError{manifest, file, d.SHA256, want}
	}
	if d.Binary != d.Target.Binary(c.version) {
		return "", &ManifestError{manifest, fmt.Sprintf("%s: installs %s, the archive holds %s", d.Target, d.Binary, d.Target.Binary(c.version))}
	}
	if err, done := c.archives[file]; done {
		return base, err
	}
	err := c.archive(manifest, d.Target, want)
	c.archives[file] = err
	return base, err
}

// archive checks the archive file of t: its hash and what it holds.
func (c checker) archive(manifest string, t Target, want string) error {
	file := t.Archive(c.version)
	path := filepath.Join(c.dir, file)
	got, err := fileSHA256(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &MissingArchiveError{manifest, file, c.dir}
	}
	if err != nil {
		return err
	}
	if got != want {
		return &HashMismatchError{file, file, got, want}
	}
	names, err := entries(path)
	if err != nil {
		return &ManifestError{manifest, fmt.Sprintf("%s: %v", file, err)}
	}
	folder := t.Folder(c.version) + "/"
	binary := false
	for name, regular := range names {
		if !strings.HasPrefix(name, folder) {
			return &ManifestError{manifest, fmt.Sprintf("%s holds %s, outside its folder %s", file, name, folder)}
		}
		binary = binary || (name == t.Binary(c.version) && regular)
	}
	if !binary {
		return &ManifestError{manifest, fmt.Sprintf("%s holds no file %s, which the manifest installs", file, t.Binary(c.version))}
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
