package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/moonbridge/moonbridge/cmd/internal/buildinfo"
	"github.com/moonbridge/moonbridge/gossl"
)

// `moonbridge version --check-tls` proves that this binary's TLS provider works on the machine
// it runs on, not only that it links: in a BoringSSL build it runs gossl's self-test (a loopback
// handshake with crypto/tls and a record each way through BoringSSL). make dist-check runs it on
// every binary the build machine can execute, including the arm64 build under qemu-user, where a
// wrongly cross-built BoringSSL (say, the wrong assembly) would fail here and not at link time.

// addCheckTLSFlag registers --check-tls on the version command's flags and returns the step that
// runs after the version is printed; the step does nothing when the flag is not given.
func addCheckTLSFlag(fs *flag.FlagSet) func(w io.Writer) error {
	enabled := fs.Bool("check-tls", false, "then run this build's TLS self-test and exit non-zero if it fails")
	return func(w io.Writer) error {
		if !*enabled {
			return nil
		}
		return checkTLS(w, buildinfo.Flavour())
	}
}

// checkTLS selects the provider the flavour stands for. Selecting "boringssl" runs BoringSSL's
// self-test and fails when it fails; the pure-Go build has only crypto/tls, which needs none.
func checkTLS(w io.Writer, flavour string) error {
	name := gossl.ProviderGo
	if flavour == "boringssl" {
		name = gossl.ProviderBoringSSL
	}
	p, _, err := gossl.Select(name)
	if err != nil {
		return fmt.Errorf("tls self-test: %w", err)
	}
	if p.Name() == gossl.ProviderBoringSSL {
		fmt.Fprintln(w, "tls self-test: boringssl ok (loopback handshake with crypto/tls, one record each way)")
		return nil
	}
	fmt.Fprintln(w, "tls self-test: go ok (crypto/tls only; pure-Go build, nothing to self-test)")
	return nil
}
