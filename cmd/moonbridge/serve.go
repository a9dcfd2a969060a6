package main

import (
	"context"
	"io"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/relay"
)

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "[flags]", "Run the proxy. Without --config it uses embedded defaults: Minecraft, ws and wss on 127.0.0.1:25577 (wss with a throwaway self-signed certificate) in front of a server on 127.0.0.1:25565. Flags override the config file. SIGHUP reloads the TLS certificates (other settings take a restart) and never stops the process; SIGINT or SIGTERM stop.", stdout, stderr)
	var flags serveFlags
	flags.register(fs.FlagSet)
	return runDaemon(fs, args, flags.effectiveConfig, stderr, serve)
}

// newRelay builds the relay and its TLS server (nil without wss) from cfg without binding a
// port: certificates and favicon are read, routes and listeners checked. check-config runs it
// too, so that it refuses what serve refuses. The caller closes the TLS server.
func newRelay(cfg config.Config, log zerolog.Logger) (*relay.Server, *gossl.Server, error) {
	relayCfg, tlsServer, err := relayConfig(cfg, log)
	if err != nil {
		return nil, nil, err
	}
	srv, err := relay.New(relayCfg)
	if err != nil {
		if tlsServer != nil {
			tlsServer.Close()
		}
		return nil, nil, err
	}
	return srv, tlsServer, nil
}

// serve runs the proxy until ctx ends, then closes every session and waits for them.
func serve(ctx context.Context, cfg config.Config, log zerolog.Logger) error {
	hup := catchHangups()
	defer hup.stop()
	if warning := clientIPWarning(cfg); warning != "" {
		log.Warn().Msg(warning)
	}
	raiseNoFile(log)
	srv, tlsServer, err := newRelay(cfg, log)
	if err != nil {
		return err
	}
	var certs reloader // a nil *gossl.Server would make a non-nil interface
	if tlsServer != nil {
		defer tlsServer.Close()
		certs = tlsServer
	}
	hup.handle(reloadOnHangup(certs, log))
	if err := srv.Start(); err != nil {
		return err
	}
	stopAdmin, err := startAdmin(cfg.Admin.Listen, srv, log)
	if err != nil {
		srv.Close()
		return err
	}
	defer stopAdmin()
	<-ctx.Done()
	log.Info().Msg("shutting down: closing listeners and sessions")
	return srv.Close()
}
