package image

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// packDir writes the tree under dir to the tar file out: entries in lexical order, owned by
// root, dated mtime, directories 0755 and files 0644, so the same tree gives the same bytes.
func packDir(dir, out string, mtime time.Time) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		return packEntry(tw, path, filepath.ToSlash(rel), d, mtime)
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func packEntry(tw *tar.Writer, path, name string, d fs.DirEntry, mtime time.Time) error {
	hdr := &tar.Header{Name: name, Mode: 0o644, ModTime: mtime, Typeflag: tar.TypeReg}
	if d.IsDir() {
		hdr.Name, hdr.Mode, hdr.Typeflag = name+"/", 0o755, tar.TypeDir
		return tw.WriteHeader(hdr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	hdr.Size = int64(len(data))
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = tw.Write(data)
	return err
}

// unpack extracts the tar file archive into dir: regular files and directories only, each
// inside dir.
func unpack(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		name := filepath.Clean(filepath.FromSlash(hdr.Name))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%s: entry %q leaves the archive", archive, hdr.Name)
		}
		if err := unpackEntry(tr, hdr, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
	}
}

func unpackEntry(r io.Reader, hdr *tar.Header, path string) error {
	switch hdr.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(path, 0o755)
	case tar.TypeReg:
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return fmt.Errorf("entry %q: type %q is neither a file nor a directory", hdr.Name, strings.TrimSpace(string(hdr.Typeflag)))
}
