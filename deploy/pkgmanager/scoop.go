package pkgmanager

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// What every manifest says of moonbridge. summary fits Homebrew's desc (at most 80 characters,
// no leading article, no final full stop).
const (
	summary     = "Minecraft edge proxy over WebSocket, and the client bridge players run"
	description = "moonbridge relays Minecraft over WebSocket: on a server behind a CDN it terminates " +
		"wss and relays the byte stream to the backend servers; on a player's machine " +
		"`moonbridge client --url wss://...` lets an unmodified Minecraft reach such a server."
	playerNote = "Players: run `moonbridge client --url wss://...` with the URL your server's owner " +
		"gives you, then add localhost:25565 to Minecraft's server list."
	license = "Apache-2.0"
	exe     = "moonbridge.exe"
)

const scoopPath = "scoop/moonbridge.json"

// scoopManifest is a Scoop app manifest (Scoop's schema.json), the fields this package writes.
type scoopManifest struct {
	Version      string     `json:"version"`
	Description  string     `json:"description"`
	Homepage     string     `json:"homepage"`
	License      string     `json:"license"`
	Architecture scoopArchs `json:"architecture"`
	Bin          string     `json:"bin"`
	Notes        string     `json:"notes"`
}

type scoopArchs struct {
	X64   *scoopArch `json:"64bit"`
	ARM64 *scoopArch `json:"arm64"`
}

// scoopArch is one architecture's archive. extract_dir is the archive's top folder, which Scoop
// moves to the app's folder, so bin is found there.
type scoopArch struct {
	URL        string `json:"url"`
	Hash       string `json:"hash"`
	ExtractDir string `json:"extract_dir"`
}

var scoop = kind{
	name:    "scoop",
	targets: []Target{WindowsAMD64, WindowsARM64},
	main:    func(Settings) string { return scoopPath },
	write:   writeScoop,
	read:    readScoop,
}

func writeScoop(s Settings, d map[Target]Download) (map[string][]byte, error) {
	arch := func(t Target) *scoopArch {
		return &scoopArch{URL: d[t].URL, Hash: d[t].SHA256, ExtractDir: t.Folder(s.Version)}
	}
	m := scoopManifest{Version: s.Version, Description: summary, Homepage: s.Homepage, License: license,
		Architecture: scoopArchs{X64: arch(WindowsAMD64), ARM64: arch(WindowsARM64)}, Bin: exe, Notes: playerNote}
	data, err := json.MarshalIndent(m, "", "    ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{scoopPath: append(data, '\n')}, nil
}

// readScoop decodes the manifest strictly: an unknown field (a 32bit architecture, a url outside
// architecture) is an error.
func readScoop(dir string) (parsed, error) {
	p := parsed{path: scoopPath}
	data, err := os.ReadFile(filepath.Join(dir, scoopPath))
	if err != nil {
		return p, err
	}
	var m scoopManifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return p, &ManifestError{scoopPath, err.Error()}
	}
	if m.Bin != exe {
		return p, &ManifestError{scoopPath, "bin is " + m.Bin + ", want " + exe}
	}
	p.version = m.Version
	for _, a := range []struct {
		t    Target
		arch *scoopArch
	}{{WindowsAMD64, m.Architecture.X64}, {WindowsARM64, m.Architecture.ARM64}} {
		if a.arch == nil {
			return p, &ManifestError{scoopPath, "no architecture for " + a.t.String()}
		}
		p.downloads = append(p.downloads, Download{Target: a.t, URL: a.arch.URL, SHA256: strings.ToLower(a.arch.Hash),
			Binary: a.arch.ExtractDir + "/" + m.Bin})
	}
	return p, nil
}
