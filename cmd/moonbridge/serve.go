package main

import (
	"context"
	"io"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "[flags]", "Run the proxy. Without --config it uses embedded defaults: Minecraft, ws and wss on 127.0.0.1:25577 (wss with a throwaway self-signed certificate) in front of a server on 127.0.0.1:25565. Flags override the config file, also after a reload. SIGHUP reloads the config file (listeners, routes, limits, TLS, ...; a file that does not load keeps the running config) and never stops the process; SIGTERM or SIGINT drain (shutdown.drain_timeout), a second one closes every session at once.", stdout, stderr)
	var flags serveFlags
	flags.register(fs.FlagSet)
	return runDaemon(fs, args, flags.effectiveConfig, stderr, func(stop, hurry context.Context, cfg config.Config, log zerolog.Logger) error {
		return serve(stop, hurry, cfg, log, flags.effectiveConfig)
	})
}

// newRelay builds the relay and its TLS server (nil without wss) from cfg without binding a
// port: certificates and favicon are read, routes and listeners checked. check-config runs it
// too, so that it refuses what serve refuses. The caller closes the TLS server.
func newRelay(cfg config.Config, log zerolog.Logger) (*relay.Server, *tlsChoice, error) {
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
	if tlsServer == nil {
		return srv, nil, nil
	}
	return srv, &tlsChoice{tlsServer, relayCfg.TLSReason}, nil
}

// serve runs the proxy until stop ends (or a listener fails for good), then drains: sessions
// run on until they end, shutdown.drain_timeout passes or hurry ends. reread loads the
// configuration again for SIGHUP, as at startup.
func serve(stop, hurry context.Context, cfg config.Config, log zerolog.Logger, reread func() (config.Config, error)) error {
	hup := catchHangups()
	defer hup.stop()
	logWarnings(log, cfg)
	raiseNoFile(log, cfg.Limits.MaxConnections)
	srv, tlsServer, err := newRelay(cfg, log)
	if err != nil {
		return err
	}
	setBufferProfile(cfg.Memory)
	reloads := &configReloader{reread: reread, srv: srv, log: log, reloads: newReloadCounter(), current: cfg, tls: tlsServer}
	defer reloads.close()
	// INTEGRATION POINT: the route book (branch h-api) is the sink that serves discovered
	// routes beside the file's; until it is wired here, they are only logged.
	stopKube, err := startKubeDiscovery(cfg, unservedRoutes{log}, log)
	if err != nil {
		return err
	}
	defer stopKube()
	if err := srv.Start(); err != nil {
		return err
	}
	hup.handle(reloads.reload) // a SIGHUP before this waits in hup
	// TODO(integrator): discovery.docker is parsed, validated and its source tested
	// (discoverdocker.go), but serve has no routeSink yet: connect h-api's routeBook here,
	//	defer startDockerDiscovery(cfg.Discovery.Docker, book, log)()

	stopAdmin, err := startAdmin(cfg.Admin, srv, log, srv, reloads.reloads)
	if err != nil {
		srv.Close()
		return err
	}
	defer stopAdmin()
	return drainWhenStopped(stop, hurry, srv, reloads.drainTimeout, log)
}

// unservedRoutes logs the routes a discovery source found, for as long as no route book serves
// them (see serve's integration point).
type unservedRoutes struct{ log zerolog.Logger }

func (u unservedRoutes) setDiscovered(source string, routes []config.Route) {
	names := make([]string, len(routes))
	for i, r := range routes {
		names[i] = r.Name
	}
	u.log.Warn().Str("source", source).Strs("routes", names).Msg("discovered routes are not served yet")
}
