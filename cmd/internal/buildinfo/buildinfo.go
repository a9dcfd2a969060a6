// Package buildinfo says what this binary is: version, commit, flavour, TLS providers, the
// BoringSSL it carries and the CPU features that decide how fast AES-GCM runs.
package buildinfo

import (
	"runtime"
	"runtime/debug"

	"golang.org/x/sys/cpu"

	"github.com/moonbridge/moonbridge/gossl"
)

// Set by the Makefile with -ldflags -X; `go build` alone leaves the fallbacks below. nativeID
// is a hash of the C archives linked in (the Makefile's NATIVE_ID): setting it is what makes Go
// relink when only the C side changed.
var (
	version  = ""
	commit   = ""
	nativeID = ""
)

// Info is what `moonbridge version` prints.
type Info struct {
	Version      string   `json:"version"`
	Commit       string   `json:"commit"`
	GoVersion    string   `json:"go_version"`
	Platform     string   `json:"platform"`
	Flavour      string   `json:"flavour"`
	TLSProviders []string `json:"tls_providers"`
	BoringSSL    *Boring  `json:"boringssl,omitempty"`
	CPU          CPU      `json:"cpu"`
}

// Boring is the BoringSSL linked in, when there is one.
type Boring struct {
	Revision   string `json:"revision"`
	Source     string `json:"source"`
	APIVersion int    `json:"api_version"`
	NativeID   string `json:"native_id,omitempty"` // hash of the linked C archives, from make
}

// CPU lists the x86 features that AES-GCM speed depends on (all false on other architectures).
type CPU struct {
	AESNI     bool `json:"aes_ni"`
	PCLMULQDQ bool `json:"pclmulqdq"`
	AVX512F   bool `json:"avx512f"`
	VAES      bool `json:"vaes_avx512"`
	VPCLMUL   bool `json:"vpclmulqdq_avx512"`
}

// Flavour is "boringssl" for the cgo build with BoringSSL and "purego" otherwise. It is the one
// place that asks whether BoringSSL is compiled in (gossl.BoringEnabled); the rest of cmd/ asks
// Flavour.
func Flavour() string {
	if gossl.BoringEnabled {
		return "boringssl"
	}
	return "purego"
}

// Collect gathers Info for this binary.
func Collect() Info {
	info := Info{
		Version:      orDefault(version, moduleVersion()),
		Commit:       orDefault(commit, vcsRevision()),
		GoVersion:    runtime.Version(),
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
		Flavour:      Flavour(),
		TLSProviders: []string{"go"},
		CPU: CPU{
			AESNI:     cpu.X86.HasAES,
			PCLMULQDQ: cpu.X86.HasPCLMULQDQ,
			AVX512F:   cpu.X86.HasAVX512F,
			VAES:      cpu.X86.HasAVX512VAES,
			VPCLMUL:   cpu.X86.HasAVX512VPCLMULQDQ,
		},
	}
	if info.Flavour == "boringssl" {
		linked := gossl.LinkedBoringSSL()
		info.TLSProviders = []string{"boringssl", "go"}
		info.BoringSSL = &Boring{Revision: linked.Revision, Source: linked.Source, APIVersion: linked.APIVersion, NativeID: nativeID}
	}
	return info
}

func orDefault(value, fallback string) string {
	if value != "" {
		return value
	}
	return fallback
}

func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func vcsRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}
