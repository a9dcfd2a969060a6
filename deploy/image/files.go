package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"time"
)

// file is one entry of a layer: a directory when data is nil and dir is set.
type file struct {
	name string // relative to /, no leading slash, as in an image layer
	mode int64
	dir  bool
	data []byte
}

// baseFiles is the first layer, the same in every architecture's image: the user and group
// files and the CA bundle, and /etc/moonbridge as the config's mount point.
func baseFiles(caBundle []byte) []file {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nmoonbridge:x:%d:%d:moonbridge:/nonexistent:/sbin/nologin\n", UID, GID)
	group := fmt.Sprintf("root:x:0:\nmoonbridge:x:%d:\n", GID)
	return []file{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/moonbridge/", mode: 0o755, dir: true},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: CABundlePath[1:], mode: 0o644, data: caBundle},
	}
}

// binaryFiles is the second layer: the binary, owned by root so the user cannot change it.
func binaryFiles(binary []byte) []file {
	return []file{
		{name: "usr/", mode: 0o755, dir: true},
		{name: "usr/bin/", mode: 0o755, dir: true},
		{name: BinaryPath[1:], mode: 0o755, data: binary},
	}
}

// layerTar packs files, in their order, owned by root and dated created.
func layerTar(files []file, created time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		hdr := &tar.Header{Name: f.name, Mode: f.mode, ModTime: created, Format: tar.FormatUSTAR,
			Typeflag: tar.TypeReg, Size: int64(len(f.data))}
		if f.dir {
			hdr.Typeflag, hdr.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	err := tw.Close()
	return buf.Bytes(), err
}
