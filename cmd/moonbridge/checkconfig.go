package main

import (
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

func runCheckConfig(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("check-config", "FILE", "Validate a config file as serve would (unknown keys, wrong types, addresses, ports, durations, and whether the certificate and favicon files load; each error names the key and line) and print the effective configuration, defaults included; unsafe client address setups (a forgeable header, trusting everyone) are warnings on stderr, the file still valid. Binds no port.", stdout, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.UsageError()
	}
	cfg, err := config.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	if err := prepareAsServe(cfg); err != nil {
		return fmt.Errorf("config %s: %w", fs.Arg(0), err)
	}
	out, err := cfg.Marshal()
	if err != nil {
		return fmt.Errorf("rendering the effective config: %w", err)
	}
	printWarnings(stderr, cfg)
	fmt.Fprintf(stdout, "# %s is valid; effective configuration:\n%s", fs.Arg(0), out)
	return nil
}

// prepareAsServe builds what serve would from cfg, binding nothing, and lets it go: the
// certificates, favicon and bans file must load and the relay accept its settings.
func prepareAsServe(cfg config.Config) error {
	if cfg.Replicas.Enabled {
		if _, err := replicaSettings(cfg.Replicas); err != nil {
			return err
		}
	}
	store, err := openBans(cfg.BansFile, zerolog.Nop())
	if err != nil {
		return err
	}
	srv, tlsServer, err := newRelay(cfg, nil, store.list, nil, nil, nil, zerolog.Nop())
	if err != nil {
		return err
	}
	if tlsServer != nil {
		tlsServer.server.Close()
	}
	return srv.Close()
}
