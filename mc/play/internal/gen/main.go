// Command gen writes mc/play's table of packet ids (ids_gen.go) from a copy of the npm package
// minecraft-data, outside the repository:
//
//	mkdir -p ~/.cache/moonbridge/mcdata && cd ~/.cache/moonbridge/mcdata && npm install minecraft-data
//	cd mc/play && go generate
//
// It reads data/dataPaths.json for the releases minecraft-data knows, each release's version.json
// for its protocol number, and the protocol.json of every release of protocol 766 (1.20.5) or
// later. Releases that share a protocol must agree on every id; the login state's ids must be the
// ones package mc and mc/play use as constants. Tests and builds never run it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	home, _ := os.UserHomeDir()
	root := flag.String("mcdata", filepath.Join(home, ".cache/moonbridge/mcdata/node_modules/minecraft-data"),
		"the minecraft-data npm package's folder (holding package.json)")
	out := flag.String("out", "ids_gen.go", "the file to write")
	flag.Parse()
	if err := run(*root, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(root, out string) error {
	src, err := load(root)
	if err != nil {
		return err
	}
	code, err := render(src)
	if err != nil {
		return err
	}
	return os.WriteFile(out, code, 0o644)
}
