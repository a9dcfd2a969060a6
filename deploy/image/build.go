package image

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Build writes spec's image index, an OCI image layout packed in one tar file, to out: what
// `docker load` (Docker 25 and later), `podman load` and `skopeo copy oci-archive:` read.
func Build(spec Spec, out string) error {
	idx, err := buildIndex(spec)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "moonbridge-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	names := map[string]string{RefAnnotation: spec.Version, ContainerdNameAnnotation: containerdName(spec.Ref())}
	if err := p.AppendIndex(idx, layout.WithAnnotations(names)); err != nil {
		return fmt.Errorf("writing the OCI layout: %w", err)
	}
	return packDir(dir, out, spec.Created)
}

// buildIndex makes one image per platform of Platforms and the index over them.
func buildIndex(spec Spec) (v1.ImageIndex, error) {
	if len(spec.Binaries) != len(Platforms) {
		return nil, fmt.Errorf("image: want binaries for exactly %s, got %d", strings.Join(Platforms, ", "), len(spec.Binaries))
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, platform := range Platforms {
		binary, ok := spec.Binaries[platform]
		if !ok {
			return nil, fmt.Errorf("image: no binary for %s", platform)
		}
		img, err := platformImage(spec, platform, binary)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", platform, err)
		}
		p, err := v1.ParsePlatform(platform)
		if err != nil {
			return nil, err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: p}})
	}
	return idx, nil
}

// platformImage is the base layer, the binary's layer and the config that runs it.
func platformImage(spec Spec, platform string, binary []byte) (v1.Image, error) {
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	var adds []mutate.Addendum
	for _, l := range []struct {
		files []file
		why   string
	}{{baseFiles(spec.CABundle), "CA certificates (Debian ca-certificates) and the moonbridge user"}, {binaryFiles(binary), "moonbridge " + spec.Version}} {
		layer, err := newLayer(l.files, spec)
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
			History: v1.History{Created: v1.Time{Time: spec.Created}, CreatedBy: "moonbridge deploy/cmd/mkimage", Comment: l.why}})
	}
	img, err := mutate.Append(img, adds...)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, _ = strings.Cut(platform, "/")
	cfg.Created = v1.Time{Time: spec.Created}
	cfg.Config = runConfig(spec)
	return mutate.ConfigFile(img, cfg)
}

// runConfig is what a runtime reads from the image: user, command, ports, labels.
func runConfig(spec Spec) v1.Config {
	ports := map[string]struct{}{}
	for _, p := range Ports {
		ports[p] = struct{}{}
	}
	return v1.Config{
		User:         fmt.Sprintf("%d:%d", UID, GID),
		Entrypoint:   Entrypoint,
		Cmd:          Cmd,
		ExposedPorts: ports,
		WorkingDir:   "/",
		Env:          []string{"PATH=/usr/bin"},
		Labels:       spec.Labels,
	}
}

// newLayer is files as a gzip-compressed OCI layer.
func newLayer(files []file, spec Spec) (v1.Layer, error) {
	data, err := layerTar(files, spec.Created)
	if err != nil {
		return nil, err
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return tarball.LayerFromOpener(open, tarball.WithMediaType(types.OCILayer))
}

// containerdName is ref the way docker normalizes it: a bare name is on docker.io/library/, a
// path whose first part is not a host on docker.io/.
func containerdName(ref string) string {
	first, _, hasPath := strings.Cut(ref, "/")
	switch {
	case !hasPath:
		return "docker.io/library/" + ref
	case !strings.ContainsAny(first, ".:") && first != "localhost":
		return "docker.io/" + ref
	}
	return ref
}
