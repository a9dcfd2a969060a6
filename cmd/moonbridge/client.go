package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bridge"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/ws"
)

func runClient(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("client", "--url wss://HOST/PATH [flags]", "Let an unmodified game client reach a moonbridge server through WebSocket: listen on a local port and open one WebSocket session per game connection. In Minecraft, connect to the address it prints (localhost:25565). Flags override the config file's client: section. SIGINT or SIGTERM stop. With --write-config FILE it writes the settings for a player instead (see docs/client.md); moonbridge without a command reads such a file or asks for the server.", stdout, stderr)
	var flags clientFlags
	flags.register(fs.FlagSet)
	return runDaemon(fs, args, flags.effectiveConfig, stderr, func(ctx, _ context.Context, cfg config.Config, log zerolog.Logger) error {
		if flags.writeConfig != "" {
			return writeConfigForPlayer(flags.writeConfig, cfg.Client, stdout)
		}
		return runBridge(ctx, cfg.Client, settingAdvice{}, log, stdout)
	})
}

// runBridge runs the bridge until ctx ends, then closes every session and waits for them; what
// it tells the player to change, advice says.
func runBridge(ctx context.Context, c config.Client, advice settingAdvice, log zerolog.Logger, stdout io.Writer) error {
	bcfg, err := bridgeConfig(c, advice, log)
	if err != nil {
		return err
	}
	b, err := bridge.New(bcfg)
	if err != nil {
		return err
	}
	if err := b.Start(); err != nil {
		return &gameListenError{addr: c.Listen, err: err, advice: advice}
	}
	printStartup(stdout, b.Addr(), bcfg.Remote)
	log.Info().Stringer("listen", b.Addr()).Str("url", c.URL).Str("connect", c.Connect).Msg("client bridge started")
	<-ctx.Done()
	log.Info().Msg("shutting down: closing game sessions")
	return b.Close()
}

// bridgeConfig turns the client section into the bridge's settings.
func bridgeConfig(c config.Client, advice settingAdvice, log zerolog.Logger) (bridge.Config, error) {
	header, err := c.HTTPHeader()
	if err != nil {
		return bridge.Config{}, err
	}
	remote := ws.DialConfig{
		URL: c.URL, Address: c.Connect, ServerName: c.SNI, Host: c.Host, Header: header,
		Conn:      ws.DefaultConfig(), // the keepalive stops a CDN from cutting a quiet session
		RawStream: c.RawStream,        // which has none: the game's own keepalive packets must do
	}
	remote.Conn.Logger = log
	u, err := url.Parse(c.URL)
	if err != nil {
		return bridge.Config{}, err
	}
	if u.Scheme == "wss" {
		remote.TLSConfig, err = gossl.ClientTLSConfig(gossl.ClientConfig{
			CAFile: c.CA, Insecure: c.Insecure, ServerName: c.SNI, MinVersion: c.TLSMin, Logger: log,
		})
		if err != nil {
			return bridge.Config{}, err
		}
	} else {
		log.Warn().Str("url", c.URL).Msg("ws:// is not encrypted: use wss:// unless the server is on this machine or network")
	}
	return bridge.Config{Listen: c.Listen, Remote: remote, HelloTimeout: c.HelloWait, EarlyData: c.EarlyData,
		SettingNames: advice.setting, Logger: log}, nil
}

// printStartup tells the player what to type in the game, where the bridge goes and how to
// stop it.
func printStartup(w io.Writer, listen net.Addr, remote ws.DialConfig) {
	addr := bridge.GameAddress(listen)
	fmt.Fprintf(w, "moonbridge client is running.\n\nIn Minecraft: Multiplayer → Direct Connection → %s → Join Server\n", addr)
	fmt.Fprintf(w, "(or Add Server with the address %s to keep it in the list)\n\nIt plays through %s", addr, remote.URL)
	if remote.Address != "" {
		fmt.Fprintf(w, " (connecting to %s)", remote.Address)
	}
	fmt.Fprintln(w, ".\nLeave this window open while you play. To stop: close this window or press Ctrl+C.")
	if remote.TLSConfig != nil && remote.TLSConfig.InsecureSkipVerify {
		fmt.Fprintln(w, "WARNING: insecure is on: the server's certificate is not checked; anyone on the way can read and change your game. Use it for tests only.")
	}
}

// gameListenError is a client that cannot bind the address the game connects to: it says which
// setting chooses another. The default, 127.0.0.1:25565, is also the port of a Minecraft
// server running on the same machine.
type gameListenError struct {
	addr   string
	err    error
	advice settingAdvice
}

func (e *gameListenError) Error() string {
	why := e.err.Error()
	if errors.Is(e.err, syscall.EADDRINUSE) {
		why = "another program has that address (a Minecraft server on this machine?)"
	}
	return fmt.Sprintf("cannot listen on %s for the game: %s; choose another address: %s, and add that one in Minecraft", e.addr, why, e.advice.listen())
}

func (e *gameListenError) Unwrap() error { return e.err }
