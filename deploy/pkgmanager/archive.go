package pkgmanager

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
)

// entries lists an archive's entries (zip, or tar in gzip) as name: is a regular file.
func entries(path string) (map[string]bool, error) {
	if strings.HasSuffix(path, ".zip") {
		return zipEntries(path)
	}
	return tarEntries(path)
}

func zipEntries(path string) (map[string]bool, error) {
	r, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	names := map[string]bool{}
	for _, f := range r.File {
		names[f.Name] = f.Mode().IsRegular()
	}
	return names, nil
}

func tarEntries(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
		names[h.Name] = h.Typeflag == tar.TypeReg
	}
}
