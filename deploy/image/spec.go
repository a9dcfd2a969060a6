// Package image builds moonbridge's container image, an OCI image index with one image per
// Linux architecture, from the release binaries, and reads one back to check it. Each image
// holds the static binary, Debian's CA bundle and a non-root user, nothing else: no shell, no
// libc (the boringssl flavour is linked statically, and names resolve in Go).
package image

import "time"

// What every image runs as and where its files are. deploy/kubernetes is written against these
// (its test checks the Deployment's user, ports and config path against them).
const (
	UID          = 65532 // the "nonroot" id distroless images use; numeric, so runAsNonRoot can verify it
	GID          = 65532
	BinaryPath   = "/usr/bin/moonbridge"
	ConfigPath   = "/etc/moonbridge/moonbridge.yml" // mounted by the operator; the image has none
	CABundlePath = "/etc/ssl/certs/ca-certificates.crt"
	// RefAnnotation names the index in the layout's index.json, which podman load reads;
	// docker load (25 and later) reads ContainerdNameAnnotation.
	RefAnnotation            = "org.opencontainers.image.ref.name"
	ContainerdNameAnnotation = "io.containerd.image.name"
)

// Entrypoint and Cmd: `moonbridge serve --config /etc/moonbridge/moonbridge.yml`; Cmd can be
// replaced to pass flags instead.
var (
	Entrypoint = []string{BinaryPath, "serve"}
	Cmd        = []string{"--config", ConfigPath}
	// Ports the deploy/kubernetes config listens on: players (Minecraft, ws and wss on one port;
	// above 1024, so no capability is needed to bind it) and the admin endpoint. Documentation
	// for `docker run -P`: the config decides what is really bound.
	Ports = []string{"25577/tcp", "9100/tcp"}
	// Platforms the index must hold, in this order.
	Platforms = []string{"linux/amd64", "linux/arm64"}
)

// Spec is what one build takes; the same Spec checks an image (Check).
type Spec struct {
	Name     string            // the image name docker and podman give it on load, e.g. moonbridge
	Version  string            // its tag, e.g. 1.2.0 or 0.0.0-3-gabc1234
	Binaries map[string][]byte // platform ("linux/amd64") to the static moonbridge binary
	CABundle []byte            // PEM certificates, Debian's /etc/ssl/certs/ca-certificates.crt
	Created  time.Time         // every timestamp in the image: the commit's time, for reproducibility
	Labels   map[string]string // OCI labels in each image's config
}

// Ref is the reference the image loads as: NAME:VERSION.
func (s Spec) Ref() string { return s.Name + ":" + s.Version }
