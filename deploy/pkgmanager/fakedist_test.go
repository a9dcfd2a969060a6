package pkgmanager

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testVersion = "1.2.3-4-gabcdef0"

func testSettings() Settings {
	return Settings{Version: testVersion, URL: "https://downloads.example.net/moonbridge/v" + testVersion,
		Homepage: "https://example.net/moonbridge", WingetID: "Example.Moonbridge"}
}

// allTargets is dist.mk's matrix: the manifests use six of its eight archives.
var allTargets = []Target{LinuxAMD64, LinuxARM64, {"linux", "amd64", "purego"}, {"linux", "arm64", "purego"},
	DarwinAMD64, DarwinARM64, WindowsAMD64, WindowsARM64}

// fakeDist makes a dist/ whose archives hold a fake binary and README.md under their folder, as
// packaging/archive.sh lays them out, plus a .deb, and writes SHA256SUMS over them as dist.sh
// does. It returns the folder and each file's sha256, computed here.
func fakeDist(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{"moonbridge_" + testVersion + "_linux_amd64_boringssl.deb": []byte("not an archive")}
	for _, target := range allTargets {
		files[target.Archive(testVersion)] = fakeArchive(t, target, target.Binary(testVersion))
	}
	return dir, writeDist(t, dir, files)
}

// writeDist writes files into dir and SHA256SUMS over them.
func writeDist(t *testing.T, dir string, files map[string][]byte) map[string]string {
	t.Helper()
	sums := map[string]string{}
	var list strings.Builder
	for name, data := range files {
		sum := sha256.Sum256(data)
		sums[name] = hex.EncodeToString(sum[:])
		fmt.Fprintf(&list, "%s  %s\n", sums[name], name)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, SumsFile), []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return sums
}

// fakeArchive is target's archive holding the folder, README.md and binary (a path in it).
func fakeArchive(t *testing.T, target Target, binary string) []byte {
	t.Helper()
	folder := target.Folder(testVersion)
	content := map[string]string{binary: "fake moonbridge for " + target.String(), folder + "/README.md": "# moonbridge\n"}
	var buf bytes.Buffer
	var err error
	if target.OS == "windows" {
		err = writeZip(&buf, folder, content)
	} else {
		err = writeTarGz(&buf, folder, content)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeZip(buf *bytes.Buffer, folder string, content map[string]string) error {
	zw := zip.NewWriter(buf)
	if _, err := zw.Create(folder + "/"); err != nil {
		return err
	}
	for name, text := range content {
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		if _, err := w.Write([]byte(text)); err != nil {
			return err
		}
	}
	return zw.Close()
}

func writeTarGz(buf *bytes.Buffer, folder string, content map[string]string) error {
	gz := gzip.NewWriter(buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: folder + "/", Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
		return err
	}
	for name, text := range content {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(text))}); err != nil {
			return err
		}
		if _, err := tw.Write([]byte(text)); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// edit replaces the one occurrence of old in dir's file name.
func edit(t *testing.T, dir, name, old, new string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), old); n != 1 {
		t.Fatalf("%s holds %q %d times, want once", name, old, n)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// written is fakeDist after Write.
func written(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir, sums := fakeDist(t)
	if _, err := Write(dir, testSettings()); err != nil {
		t.Fatal(err)
	}
	return dir, sums
}
