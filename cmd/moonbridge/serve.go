package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/maintenance"
	"github.com/moonbridge/moonbridge/cmd/internal/routebook"
	"github.com/moonbridge/moonbridge/internal/tracing"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/bans"
)

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "[flags]", "Run the proxy. Without --config it uses embedded defaults: Minecraft, ws and wss on 127.0.0.1:25577 (wss with a throwaway self-signed certificate) in front of a server on 127.0.0.1:25565. Flags override the config file, also after a reload. SIGHUP reloads the config file (listeners, routes, limits, TLS, ...; a file that does not load keeps the running config; the routes API's routes stay) and never stops the process; SIGUSR2 upgrades in place on Linux: the binary at the path this one was started as takes the listeners and the raw Minecraft and ws sessions it can carry on (login passed through); the other sessions stay here until they end or upgrade.stay passes, then drain (docs/upgrade.md). SIGTERM or SIGINT drain (shutdown.drain_timeout), a second one closes every session at once.", stdout, stderr)
	var flags serveFlags
	flags.register(fs.FlagSet)
	sock := newSockets()
	child, err := takeOver(sock)
	if err != nil {
		return fmt.Errorf("upgrade: taking over from the running process: %w", err)
	}
	err = runDaemon(fs, args, flags.effectiveConfig, stderr, func(stop, hurry context.Context, cfg config.Config, log zerolog.Logger) error {
		child.logStart(log)
		return serve(stop, hurry, cfg, log, flags.effectiveConfig, process{sockets: sock, child: child, output: stderr})
	})
	return child.fail(err) // the running process keeps serving and logs why
}

// process is what serve shares with an upgrade: the listening sockets, the process that
// started this one when an upgrade did (nil otherwise), and where a new process would write.
type process struct {
	sockets *sockets
	child   *upgradeChild
	output  io.Writer
}

// newRelay builds the relay and its TLS server (nil without wss) from cfg without binding a
// port: certificates and favicon are read, routes and listeners checked. check-config runs it
// too, so that it refuses what serve refuses. With a book, the relay serves the book's merge
// of the file's routes with its others (nil: the file's alone); list is the bans it checks
// (nil: none); tracer traces its joins (nil: off); it shares its state with shared (nil: none);
// listen binds the listeners (nil: net.Listen). The caller closes the TLS server.
func newRelay(cfg config.Config, book *routebook.Book, list *bans.List, tracer *tracing.Tracer, shared relay.Replicas, listen func(string) (net.Listener, error), log zerolog.Logger) (*relay.Server, *tlsChoice, error) {
	relayCfg, tlsServer, err := relayConfig(cfg, log)
	relayCfg.Bans, relayCfg.Replicas = list, shared
	relayCfg.Tracer = tracer
	relayCfg.Listen = listen
	if err == nil && book != nil {
		err = book.Begin(cfg, &relayCfg)
	}
	var srv *relay.Server
	if err == nil {
		srv, err = relay.New(relayCfg)
	}
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
func serve(stop, hurry context.Context, cfg config.Config, log zerolog.Logger, reread func() (config.Config, error), proc process) error {
	hup := catchHangups()
	defer hup.stop()
	up := catchUpgrades()
	defer up.stop()
	logWarnings(log, cfg)
	raiseNoFile(log, cfg.Limits.MaxConnections)
	shared, err := openReplicas(cfg.Replicas, log)
	if err != nil {
		return err
	}
	stored, persist, err := apiRouteStore(cfg.Admin.RoutesAPI, shared)
	if err != nil {
		return err
	}
	store, err := openBans(cfg.BansFile, log)
	if err != nil {
		return err
	}
	tracer, err := startTracing(cfg.Tracing, log)
	if err != nil {
		return err
	}
	defer stopTracing(tracer, cfg.Tracing, log) // after the relay has closed: its last joins go too
	book := routebook.New(log, stored, persist)
	followSharedRoutes(cfg.Admin.RoutesAPI, shared, book, log)
	srv, tlsServer, err := newRelay(cfg, book, store.list, tracer, sharedOrNil(shared), proc.sockets.relayListen, log)
	if err != nil {
		return err
	}
	maint, err := startMaintenance(cfg, srv, log)
	if err != nil {
		return err
	}
	defer maint.Stop()
	defer startReplicas(shared, srv)()
	setBufferProfile(cfg.Memory)
	reloads := &configReloader{reread: reread, srv: srv, book: book, bans: store, maintenance: maint, log: log, reloads: newReloadCounter(), current: cfg, tls: tlsServer}
	defer reloads.close()
	// The book holds what a source finds before the relay runs and serves it on attach.
	stopKube, err := startKubeDiscovery(cfg, book, log)
	if err != nil {
		return err
	}
	defer stopKube()
	if err := srv.Start(); err != nil {
		return err
	}
	book.Attach(srv)
	hup.handle(reloads.reload) // a SIGHUP before this waits in hup
	defer startDockerDiscovery(cfg.Discovery.Docker, book, log)()

	logAPIStart(cfg.Admin.RoutesAPI, shared, len(stored), log)
	collectors := withTracer(tracer, withReplicas(shared, srv, reloads.reloads, book.Gauge(), store.list)...)
	stopAdmin, err := startAdmin(cfg.Admin, srv, book, store, maint, proc.sockets, log, collectors...)
	if err != nil {
		srv.Close()
		return err
	}
	defer stopAdmin()
	if err := serving(proc, log); err != nil {
		srv.Close()
		return err
	}
	proc.child.takeSessions(srv, log)
	up.start(stop, proc.output, proc.sockets, reloads.upgradeSettings, log)
	return drainWhenStopped(stop, hurry, srv, up.handedOver(), stopAdmin, reloads, log)
}

// serving is the end of a start-up: sockets an upgrade handed over that the configuration did
// not take are closed, the process that started this one (an upgrade) hears that this one
// serves, and so does systemd.
func serving(proc process, log zerolog.Logger) error {
	if untaken := proc.sockets.closeUntaken(); len(untaken) > 0 {
		log.Warn().Strs("sockets", untaken).Msg("upgrade: sockets handed over that the configuration no longer has: closed")
	}
	if err := proc.child.ready(); err != nil {
		return fmt.Errorf("upgrade: telling the running process that this one serves: %w", err)
	}
	status := fmt.Sprintf("READY=1\nMAINPID=%d\nSTATUS=serving; SIGHUP reloads the config, SIGUSR2 upgrades to the binary at the path it was started as", os.Getpid())
	if err := sdNotify(status); err != nil {
		log.Warn().Err(err).Msg("systemd notification failed")
	}
	return nil
}

// startMaintenance is the maintenance book of srv with the config file's maintenance list in
// force, before the relay takes its first session.
func startMaintenance(cfg config.Config, srv *relay.Server, log zerolog.Logger) (*maintenance.Book, error) {
	file, err := maintenance.Read(cfg.Maintenance)
	if err != nil {
		return nil, err
	}
	book := maintenance.New(srv, log)
	book.ApplyFile(file)
	return book, nil
}
