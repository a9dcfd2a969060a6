package main

import (
	"context"
	"io"
	"os"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/logging"
)

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "[flags]", "Run the proxy. Without --config it uses embedded defaults: Minecraft, ws and wss on 127.0.0.1:25577 (wss with a throwaway self-signed certificate) in front of a server on 127.0.0.1:25565. Flags override the config file.", stderr)
	var flags serveFlags
	flags.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := flags.effectiveConfig()
	if err != nil {
		return err
	}
	log, err := logging.New(stderr, cfg.Log.Level, cfg.Log.Format)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(log, os.Exit)
	defer stop()
	return serve(ctx, cfg, log)
}

// serve runs until ctx ends. The relay is not built yet (issue 5): listeners bind and log, and a
// connection is closed at once with a log line saying why.
func serve(ctx context.Context, cfg config.Config, log zerolog.Logger) error {
	if _, err := certificates(cfg.TLS, log); err != nil {
		return err
	}
	listeners, err := bindListeners(cfg, log)
	if err != nil {
		return err
	}
	defer closeAll(listeners)
	log.Warn().Msg("the relay is not implemented yet: connections are accepted and closed")
	<-ctx.Done()
	log.Info().Msg("shutting down")
	return nil
}
