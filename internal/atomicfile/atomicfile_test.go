package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesTheFileWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bans.yaml")
	for _, text := range []string{"first\n", "second, longer\n"} {
		if err := Write(path, []byte(text)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != text {
			t.Errorf("read back %q, want %q", got, text)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want the one: a temporary file was left", len(entries))
	}
	if err := Write(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Error("writing into a directory that does not exist did not fail")
	}
}
