package config

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pngFile writes a w x h PNG to a file in dir and returns its path.
func pngFile(t *testing.T, dir string, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "icon.png")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// An icon is read when it is a 64x64 PNG in a regular file of bounded size; anything else is
// refused with an error naming the file, without reading more than the bound.
func TestReadIcon(t *testing.T) {
	dir := t.TempDir()
	good := pngFile(t, dir, 64, 64)
	if url, err := ReadIcon(good); err != nil || !strings.HasPrefix(url, "data:image/png;base64,iVBOR") {
		t.Fatalf("a 64x64 PNG: %.40q, %v", url, err)
	}
	small := filepath.Join(dir, "small.png")
	os.Rename(pngFile(t, dir, 32, 32), small)
	text := filepath.Join(dir, "motd.txt")
	os.WriteFile(text, []byte("not a png"), 0o644)
	big := filepath.Join(dir, "big.png")
	os.WriteFile(big, bytes.Repeat([]byte{0x89}, MaxIconBytes+1), 0o644)
	zero := filepath.Join(dir, "zero.png")
	os.Symlink("/dev/zero", zero)
	missing := filepath.Join(dir, "missing.png")
	bad := []string{small, text, big, zero, dir, missing}
	for _, path := range bad {
		_, err := ReadIcon(path)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file", path, err)
		}
		if path != missing && !errors.Is(err, ErrIcon) {
			t.Errorf("%s: %v is not ErrIcon", path, err)
		}
	}
}

// A route's status section is read with its defaults, and each bad key is named.
func TestRouteStatusKeys(t *testing.T) {
	icon := pngFile(t, t.TempDir(), 64, 64)
	cfg, err := Parse([]byte("routes:\n  - hosts: [\"*\"]\n    backends: [\"a:1\"]\n    status:\n      motd: '{\"text\":\"Hi\"}'\n      icon: "+icon+"\n      online: proxy\n      max_players: 50\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Routes[0].Status; s.MOTD != `{"text":"Hi"}` || s.Icon != icon || s.Online != "proxy" || s.MaxPlayers != 50 {
		t.Errorf("status %+v", s)
	}
	if s := Default().Routes[0].Status; s.Online != "backend" || s.MOTD != "" {
		t.Errorf("default status %+v, want the server's answer", s)
	}
	for text, wantKey := range map[string]string{
		"motd: '{\"text\": '":                       "routes[0].status.motd",
		"motd: " + strings.Repeat("a", 5000):        "routes[0].status.motd",
		"online: both":                              "routes[0].status.online",
		"max_players: -1":                           "routes[0].status.max_players",
		"icon: /dev/zero":                           "routes[0].status.icon",
		"version_name: " + strings.Repeat("v", 300): "routes[0].status.version_name",
	} {
		_, err := Parse([]byte("routes:\n  - hosts: [\"*\"]\n    backends: [\"a:1\"]\n    status:\n      "+text+"\n"), noEnv)
		if err == nil || !strings.Contains(err.Error(), wantKey) {
			t.Errorf("%.40s: error %v, want one naming %s", text, err, wantKey)
		}
	}
}
