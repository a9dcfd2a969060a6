package image

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/match"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/moonbridge/moonbridge/deploy/internal/testcert"
)

// testSpec has stand-in binaries (the image never runs them here) and a generated CA.
func testSpec(t *testing.T) Spec {
	t.Helper()
	return Spec{
		Name:    "moonbridge",
		Version: "1.2.3-4-gabcdef0",
		Binaries: map[string][]byte{
			"linux/amd64": []byte("\x7fELF stand-in for the amd64 binary"),
			"linux/arm64": []byte("\x7fELF stand-in for the arm64 binary"),
		},
		CABundle: testCA(t),
		Created:  time.Unix(1764500000, 0).UTC(),
		Labels:   map[string]string{"org.opencontainers.image.version": "1.2.3-4-gabcdef0"},
	}
}

func testCA(t *testing.T) []byte {
	cert, _ := testcert.New(t, "test root")
	return cert
}

func build(t *testing.T, spec Spec) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "image.oci.tar")
	if err := Build(spec, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// readBack opens the archive as an OCI layout and returns the index its one entry names.
func readBack(t *testing.T, archive string) (v1.Descriptor, v1.ImageIndex) {
	t.Helper()
	dir := t.TempDir()
	if err := unpack(archive, dir); err != nil {
		t.Fatal(err)
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("index.json: %v, %+v", err, m)
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return m.Manifests[0], idx
}

// The image read back runs `moonbridge serve --config ...` as 65532 with the ports and files
// the manifests expect, for both architectures in one index. The values are spelled out here
// rather than taken from the package, so that a change to them fails this test.
func TestImageReadBack(t *testing.T) {
	spec := testSpec(t)
	named, idx := readBack(t, build(t, spec))
	if got := named.Annotations["org.opencontainers.image.ref.name"]; got != "1.2.3-4-gabcdef0" {
		t.Errorf("ref name %q", got)
	}
	if got := named.Annotations["io.containerd.image.name"]; got != "docker.io/library/moonbridge:1.2.3-4-gabcdef0" {
		t.Errorf("containerd name %q", got)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, d := range m.Manifests {
		platforms = append(platforms, d.Platform.String())
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkReadBack(t, d.Platform.String(), img, spec)
	}
	if !slices.Equal(platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Errorf("platforms %v", platforms)
	}
}

func checkReadBack(t *testing.T, platform string, img v1.Image, spec Spec) {
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Config
	if cfg.OS+"/"+cfg.Architecture != platform {
		t.Errorf("%s: config says %s/%s", platform, cfg.OS, cfg.Architecture)
	}
	if c.User != "65532:65532" {
		t.Errorf("%s: user %q", platform, c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{"/usr/bin/moonbridge", "serve"}) || !slices.Equal(c.Cmd, []string{"--config", "/etc/moonbridge/moonbridge.yml"}) {
		t.Errorf("%s: entrypoint %q cmd %q", platform, c.Entrypoint, c.Cmd)
	}
	if len(c.ExposedPorts) != 2 || c.ExposedPorts["25577/tcp"] != struct{}{} || c.ExposedPorts["9100/tcp"] != struct{}{} {
		t.Errorf("%s: exposed ports %v", platform, c.ExposedPorts)
	}
	if !cfg.Created.Equal(spec.Created) {
		t.Errorf("%s: created %v", platform, cfg.Created)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 2 {
		t.Fatalf("%s: %d layers, %v", platform, len(layers), err)
	}
	files := flatten(t, img)
	want := map[string]string{
		"usr/bin/moonbridge":                string(spec.Binaries[platform]),
		"etc/ssl/certs/ca-certificates.crt": string(spec.CABundle),
		"etc/passwd":                        "root:x:0:0:root:/root:/sbin/nologin\nmoonbridge:x:65532:65532:moonbridge:/nonexistent:/sbin/nologin\n",
		"etc/group":                         "root:x:0:\nmoonbridge:x:65532:\n",
	}
	for name, content := range want {
		if files[name].data != content {
			t.Errorf("%s: %s holds %q", platform, name, files[name].data)
		}
	}
	if bin := files["usr/bin/moonbridge"]; bin.mode != 0o755 || bin.uid != 0 {
		t.Errorf("%s: binary mode %o owner %d", platform, bin.mode, bin.uid)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	wantNames := []string{"etc", "etc/group", "etc/moonbridge", "etc/passwd", "etc/ssl", "etc/ssl/certs",
		"etc/ssl/certs/ca-certificates.crt", "usr", "usr/bin", "usr/bin/moonbridge"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("%s: files %v, want %v", platform, names, wantNames)
	}
}

type entry struct {
	data string
	mode int64
	uid  int
}

// flatten reads the image's filesystem as a runtime would unpack it (go-containerregistry's
// mutate.Extract, not this package's reader).
func flatten(t *testing.T, img v1.Image) map[string]entry {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	files := map[string]entry{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		files[hdr.Name] = entry{data: string(data), mode: hdr.Mode, uid: hdr.Uid}
	}
}

func TestBuildIsReproducible(t *testing.T) {
	spec := testSpec(t)
	first, err := os.ReadFile(build(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(build(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("two builds of one spec differ")
	}
}

func TestCheckAcceptsWhatBuildWrote(t *testing.T) {
	spec := testSpec(t)
	if err := Check(build(t, spec), spec); err != nil {
		t.Fatal(err)
	}
}

// Check compares with the spec it is given: any difference is a MismatchError naming it.
func TestCheckFindsMismatches(t *testing.T) {
	spec := testSpec(t)
	archive := build(t, spec)
	for _, tc := range []struct {
		where  string
		change func(*Spec)
	}{
		{"index.json org.opencontainers.image.ref.name", func(s *Spec) { s.Version = "9.9.9" }},
		{"linux/amd64 config Labels", func(s *Spec) { s.Labels = map[string]string{"other": "label"} }},
		{"linux/amd64 config Created", func(s *Spec) { s.Created = s.Created.Add(time.Second) }},
		{"linux/amd64 layer 1 files", func(s *Spec) { s.CABundle = testCA(t) }},
		{"linux/amd64 layer 2 files", func(s *Spec) {
			s.Binaries = map[string][]byte{"linux/amd64": s.Binaries["linux/arm64"], "linux/arm64": s.Binaries["linux/amd64"]}
		}},
	} {
		want := spec
		tc.change(&want)
		var mismatch *MismatchError
		err := Check(archive, want)
		if !errors.As(err, &mismatch) || mismatch.Where != tc.where {
			t.Errorf("%s: got %v", tc.where, err)
		}
	}
}

// An index without arm64 is refused.
func TestCheckRefusesAMissingPlatform(t *testing.T) {
	spec := testSpec(t)
	idx, err := buildIndex(spec)
	if err != nil {
		t.Fatal(err)
	}
	arm64 := match.Platforms(v1.Platform{OS: "linux", Architecture: "arm64"})
	dir := t.TempDir()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{RefAnnotation: spec.Version, ContainerdNameAnnotation: containerdName(spec.Ref())}
	if err := p.AppendIndex(mutate.RemoveManifests(idx, arm64), layout.WithAnnotations(names)); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "amd64-only.tar")
	if err := packDir(dir, archive, spec.Created); err != nil {
		t.Fatal(err)
	}
	var mismatch *MismatchError
	if err := Check(archive, spec); !errors.As(err, &mismatch) || mismatch.Where != "index platforms" {
		t.Fatalf("got %v", err)
	}
}

func TestContainerdName(t *testing.T) {
	for ref, want := range map[string]string{
		"moonbridge:1":                 "docker.io/library/moonbridge:1",
		"someone/moonbridge:1":         "docker.io/someone/moonbridge:1",
		"ghcr.io/someone/moonbridge:1": "ghcr.io/someone/moonbridge:1",
		"localhost/moonbridge:1":       "localhost/moonbridge:1",
		"registry:5000/moonbridge:1":   "registry:5000/moonbridge:1",
	} {
		if got := containerdName(ref); got != want {
			t.Errorf("%s: %s, want %s", ref, got, want)
		}
	}
}
