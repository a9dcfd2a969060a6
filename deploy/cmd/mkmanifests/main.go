// mkmanifests writes the package-manager manifests of a release from its SHA256SUMS (Scoop,
// winget, Homebrew), or checks them against it:
//
//	mkmanifests write --dist DIR --version V --url URL --homepage URL --winget-id ID
//	mkmanifests check --dist DIR --version V
//
// packaging/manifests.sh runs it for make dist, make dist-manifests and make dist-check.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/moonbridge/moonbridge/deploy/pkgmanager"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mkmanifests:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "write" && args[0] != "check") {
		return errors.New("usage: mkmanifests write|check --dist DIR --version V [flags] (mkmanifests write -h)")
	}
	mode := args[0]
	fs := flag.NewFlagSet("mkmanifests "+mode, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dist := fs.String("dist", "", "the release folder: SHA256SUMS and the archives (required)")
	s := pkgmanager.Settings{}
	fs.StringVar(&s.Version, "version", "", "the release's version, as in the archives' names (required)")
	if mode == "write" {
		fs.StringVar(&s.URL, "url", "", "where the archives are downloaded from (DIST_URL; required)")
		fs.StringVar(&s.Homepage, "homepage", "", "the package's home page (DIST_HOMEPAGE; required)")
		fs.StringVar(&s.WingetID, "winget-id", "", "winget PackageIdentifier, Publisher.Package (DIST_WINGET_ID; required)")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *dist == "" || s.Version == "" || fs.NArg() != 0 {
		return errors.New("--dist and --version are required, and there are no arguments")
	}
	if mode == "write" {
		return write(*dist, s, stdout, stderr)
	}
	return check(*dist, s.Version, stdout, stderr)
}

func write(dist string, s pkgmanager.Settings, stdout, stderr io.Writer) error {
	names, err := pkgmanager.Write(dist, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s, downloading from %s\n", strings.Join(names, ", "), s.URL)
	warnPlaceholder(stderr, s.URL)
	return nil
}

func check(dist, version string, stdout, stderr io.Writer) error {
	checked, err := pkgmanager.Check(dist, version)
	if err != nil {
		return err
	}
	for _, c := range checked {
		targets := make([]string, len(c.Targets))
		for i, t := range c.Targets {
			targets[i] = t.String()
		}
		fmt.Fprintf(stdout, "%s: %s from %s: hashes as in SHA256SUMS, archives hold the binary\n", c.Manifest, strings.Join(targets, " "), c.Base)
	}
	warnPlaceholder(stderr, checked[0].Base)
	return nil
}

func warnPlaceholder(stderr io.Writer, url string) {
	if pkgmanager.Placeholder(url) {
		fmt.Fprintf(stderr, "mkmanifests: warning: the manifests download from %s, a placeholder: "+
			"set DIST_URL to where the release is published (docs/install.md, Package managers)\n", url)
	}
}
