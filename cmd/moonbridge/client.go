package main

import (
	"errors"
	"io"
)

// errClientNotBuilt is returned until the client bridge (issue 6) lands; the subcommand exists so
// that packages and scripts can already refer to it, and it says plainly that it does not work.
var errClientNotBuilt = errors.New("the client bridge is not implemented yet in this build")

func runClient(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("client", "--url wss://HOST/PATH [flags]", "Let an unmodified game client reach a moonbridge server through WebSocket: listen on a local port and open one WebSocket session per game connection.", stderr)
	fs.String("listen", "127.0.0.1:25565", "local `ADDR` the game connects to")
	fs.String("url", "", "server `URL`, ws:// or wss://")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return errClientNotBuilt
}
