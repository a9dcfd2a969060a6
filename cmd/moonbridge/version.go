package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/moonbridge/moonbridge/cmd/internal/buildinfo"
)

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "[--json]", "Print version, commit, Go version, flavour, TLS providers, the BoringSSL revision and its source, and the CPU features AES-GCM speed depends on.", stdout, stderr)
	asJSON := fs.Bool("json", false, "print as JSON")
	checkTLS := addCheckTLSFlag(fs.FlagSet) // --check-tls, see selftest.go
	if err := fs.Parse(args); err != nil {
		return err
	}
	info := buildinfo.Collect()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(info); err != nil {
			return err
		}
		return checkTLS(stderr) // stdout stays valid JSON
	}
	writeVersion(stdout, info)
	return checkTLS(stdout)
}

func writeVersion(w io.Writer, info buildinfo.Info) {
	fmt.Fprintf(w, "moonbridge %s (commit %s)\n", info.Version, info.Commit)
	fmt.Fprintf(w, "go:            %s %s\n", info.GoVersion, info.Platform)
	fmt.Fprintf(w, "flavour:       %s\n", info.Flavour)
	fmt.Fprintf(w, "tls providers: %s\n", strings.Join(info.TLSProviders, ", "))
	if b := info.BoringSSL; b != nil {
		fmt.Fprintf(w, "boringssl:     revision %s (API %d) from %s\n", b.Revision, b.APIVersion, b.Source)
	} else {
		fmt.Fprintln(w, "boringssl:     not compiled in (pure-Go build; wss uses crypto/tls)")
	}
	c := info.CPU
	fmt.Fprintf(w, "cpu:           aes-ni=%s pclmulqdq=%s avx512f=%s vaes=%s vpclmulqdq=%s\n",
		yesNo(c.AESNI), yesNo(c.PCLMULQDQ), yesNo(c.AVX512F), yesNo(c.VAES), yesNo(c.VPCLMUL))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
