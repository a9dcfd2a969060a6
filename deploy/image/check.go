package image

import (
	"archive/tar"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// MismatchError says where an image differs from its Spec.
type MismatchError struct {
	Where     string // e.g. "linux/arm64 config User"
	Got, Want string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("image: %s is %s, want %s", e.Where, e.Got, e.Want)
}

// expect returns a MismatchError when got and want, formatted with %v, differ.
func expect(where string, got, want any) error {
	g, w := fmt.Sprint(got), fmt.Sprint(want)
	if g != w {
		return &MismatchError{Where: where, Got: g, Want: w}
	}
	return nil
}

// Check reads the image archive at path back as a runtime would and checks it against spec:
// one index named spec.Ref() holding exactly the Platforms, and in each image the user, entry
// point, command, exposed ports, labels and times, and two layers holding exactly the files
// Build puts there, with spec's CA bundle and that platform's binary byte for byte.
func Check(path string, spec Spec) error {
	dir, err := os.MkdirTemp("", "moonbridge-image-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := unpack(path, dir); err != nil {
		return err
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		return err
	}
	idx, err := namedIndex(p, spec)
	if err != nil {
		return err
	}
	return checkPlatforms(idx, spec)
}

// namedIndex is the one entry of the layout's index.json, an image index carrying the names.
func namedIndex(p layout.Path, spec Spec) (v1.ImageIndex, error) {
	top, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	m, err := top.IndexManifest()
	if err != nil {
		return nil, err
	}
	if err := expect("index.json entries", len(m.Manifests), 1); err != nil {
		return nil, err
	}
	d := m.Manifests[0]
	for _, err := range []error{
		expect("index.json entry media type", d.MediaType, types.OCIImageIndex),
		expect("index.json "+RefAnnotation, d.Annotations[RefAnnotation], spec.Version),
		expect("index.json "+ContainerdNameAnnotation, d.Annotations[ContainerdNameAnnotation], containerdName(spec.Ref())),
	} {
		if err != nil {
			return nil, err
		}
	}
	return top.ImageIndex(d.Digest)
}

// checkPlatforms checks that the index holds one image per platform of Platforms, in order,
// and each image.
func checkPlatforms(idx v1.ImageIndex, spec Spec) error {
	m, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	var got []string
	for _, d := range m.Manifests {
		if d.Platform != nil {
			got = append(got, d.Platform.String())
		} else {
			got = append(got, "(none)")
		}
	}
	if err := expect("index platforms", got, Platforms); err != nil {
		return err
	}
	for i, d := range m.Manifests {
		if err := expect(got[i]+" manifest media type", d.MediaType, types.OCIManifestSchema1); err != nil {
			return err
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			return err
		}
		if err := checkImage(img, got[i], spec); err != nil {
			return err
		}
	}
	return nil
}

func checkImage(img v1.Image, platform string, spec Spec) error {
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	if err := checkConfig(cfg, platform, spec); err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	want := [][]file{baseFiles(spec.CABundle), binaryFiles(spec.Binaries[platform])}
	if err := expect(platform+" layers", len(layers), len(want)); err != nil {
		return err
	}
	for i, l := range layers {
		if err := checkLayer(l, fmt.Sprintf("%s layer %d", platform, i+1), want[i], spec); err != nil {
			return err
		}
	}
	return nil
}

func checkConfig(cfg *v1.ConfigFile, platform string, spec Spec) error {
	want := runConfig(spec)
	c := cfg.Config
	ports := slices.Sorted(func(yield func(string) bool) {
		for p := range c.ExposedPorts {
			if !yield(p) {
				return
			}
		}
	})
	for _, err := range []error{
		expect(platform+" config platform", cfg.OS+"/"+cfg.Architecture, platform),
		expect(platform+" config User", c.User, want.User),
		expect(platform+" config Entrypoint", c.Entrypoint, want.Entrypoint),
		expect(platform+" config Cmd", c.Cmd, want.Cmd),
		expect(platform+" config ExposedPorts", ports, slices.Sorted(slices.Values(Ports))),
		expect(platform+" config Labels", c.Labels, want.Labels),
		expect(platform+" config Created", cfg.Created.UTC(), spec.Created.UTC()),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkLayer compares a layer's entries with want: names, types, modes, owner root, times and
// contents (by SHA-256).
func checkLayer(l v1.Layer, where string, want []file, spec Spec) error {
	rc, err := l.Uncompressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	got, err := layerEntries(rc, spec)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	var wantEntries []string
	for _, f := range want {
		wantEntries = append(wantEntries, describe(f.name, f.mode, f.dir, f.data))
	}
	return expect(where+" files", strings.Join(got, "; "), strings.Join(wantEntries, "; "))
}

// layerEntries describes each entry of a layer, and fails on one not owned by root or not
// dated spec.Created.
func layerEntries(r io.Reader, spec Spec) ([]string, error) {
	tr := tar.NewReader(r)
	var out []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if hdr.Uid != 0 || hdr.Gid != 0 {
			return nil, &MismatchError{Where: hdr.Name + " owner", Got: fmt.Sprintf("%d:%d", hdr.Uid, hdr.Gid), Want: "0:0"}
		}
		if err := expect(hdr.Name+" mtime", hdr.ModTime.UTC(), spec.Created.UTC()); err != nil {
			return nil, err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out = append(out, describe(hdr.Name, hdr.Mode, hdr.Typeflag == tar.TypeDir, data))
	}
}

func describe(name string, mode int64, dir bool, data []byte) string {
	if dir {
		return fmt.Sprintf("%s dir %04o", name, mode)
	}
	return fmt.Sprintf("%s %04o sha256:%x", name, mode, sha256.Sum256(data))
}
