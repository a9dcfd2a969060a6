// mkimage builds moonbridge's container image from the release binaries, or checks one:
//
//	mkimage build --image FILE [flags] linux/amd64=BINARY linux/arm64=BINARY
//	mkimage check --image FILE [flags] linux/amd64=BINARY linux/arm64=BINARY
//
// The image is an OCI image index (one image per architecture) in an OCI layout packed as one
// tar file; packaging/image.sh runs it for make dist and make dist-check.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/deploy/image"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "build" && args[0] != "check") {
		return errors.New("usage: mkimage build|check [flags] PLATFORM=BINARY... (mkimage build -h)")
	}
	mode := args[0]
	fs := flag.NewFlagSet("mkimage "+mode, flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("image", "", "the image archive to write (build) or read (check)")
	name := fs.String("name", "moonbridge", "image name docker and podman load it as")
	version := fs.String("version", "", "image tag (required)")
	created := fs.Int64("created", 0, "every timestamp in the image, in Unix seconds (SOURCE_DATE_EPOCH)")
	caBundle := fs.String("ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "PEM CA bundle to ship")
	labels := labelFlag{}
	fs.Var(labels, "label", "KEY=VALUE label in each image's config (repeatable)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *file == "" || *version == "" {
		return errors.New("--image and --version are required")
	}
	spec := image.Spec{Name: *name, Version: *version, Created: time.Unix(*created, 0).UTC(), Labels: labels}
	var err error
	if spec.CABundle, err = os.ReadFile(*caBundle); err != nil {
		return err
	}
	if spec.Binaries, err = readBinaries(fs.Args()); err != nil {
		return err
	}
	if mode == "build" {
		return image.Build(spec, *file)
	}
	if err := image.Check(*file, spec); err != nil {
		return err
	}
	fmt.Printf("%s: %s for %s, user %d, every file of every layer as built\n", filepath.Base(*file), spec.Ref(), strings.Join(image.Platforms, " and "), image.UID)
	return nil
}

// readBinaries reads PLATFORM=FILE arguments.
func readBinaries(args []string) (map[string][]byte, error) {
	binaries := map[string][]byte{}
	for _, arg := range args {
		platform, path, ok := strings.Cut(arg, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want PLATFORM=BINARY", arg)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		binaries[platform] = data
	}
	return binaries, nil
}

// labelFlag collects KEY=VALUE flags.
type labelFlag map[string]string

func (l labelFlag) String() string { return fmt.Sprint(map[string]string(l)) }

func (l labelFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q: want KEY=VALUE", s)
	}
	l[k] = v
	return nil
}
