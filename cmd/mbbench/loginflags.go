package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
)

// How the proxy phase's players log in (--auth), after the relay's route setting.
const (
	authPassthrough = "passthrough"
	authOnline      = "online"
)

// loginFlags choose the proxy phase's login: passed through to the offline backend, or an
// online-mode login the relay runs against mbbench's fake session server. The
// direct phase always logs in offline: the fake backend is an offline-mode server.
type loginFlags struct {
	auth, forwarding, sessionListen string
}

func (f *loginFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.auth, "auth", authPassthrough, "proxy phase login: passthrough (the backend's offline login) or online (the relay's online-mode login: encryption, mbbench's fake session server, AES/CFB8 on the players' side)")
	fs.StringVar(&f.forwarding, "forwarding", "none", "--auth online with --serve: the route's forwarding to the backend, none or bungeecord")
	fs.StringVar(&f.sessionListen, "session-listen", "", "--auth online: the fake session server's `ADDR` (default 127.0.0.1, a free port); a relay started elsewhere needs login.session_server: http://ADDR")
}

// check refuses settings that cannot run, before anything starts.
func (f *loginFlags) check(t *targetFlags) error {
	switch {
	case f.auth != authPassthrough && f.auth != authOnline:
		return usageError("--auth %q: want passthrough or online", f.auth)
	case f.forwarding != "none" && f.forwarding != "bungeecord":
		return usageError("--forwarding %q: want none or bungeecord", f.forwarding)
	case f.auth != authOnline && (f.forwarding != "none" || f.sessionListen != ""):
		return usageError("--forwarding and --session-listen go with --auth online")
	case f.auth == authOnline && (t.target != "" || t.callerConfig()) && f.sessionListen == "":
		return usageError("--auth online with --target or a --serve-arg --config of yours needs --session-listen: that relay's login.session_server must name the fake session server before the run")
	case f.auth == authOnline && (t.target != "" || t.callerConfig()) && f.forwarding != "none":
		return usageError("--forwarding goes into the config mbbench writes for --serve; set it in your relay's own config")
	}
	return nil
}

// start starts the fake session server for --auth online (nil otherwise).
func (f *loginFlags) start(stderr io.Writer) (*authfake.SessionServer, error) {
	if f.auth != authOnline {
		return nil, nil
	}
	addr := f.sessionListen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	sessions, err := authfake.ListenSessionServer(addr)
	if err != nil {
		return nil, fmt.Errorf("fake session server: %w", err)
	}
	fmt.Fprintf(stderr, "# online login: fake session server at %s (the relay's login.session_server)\n", sessions.URL)
	return sessions, nil
}

// served makes the route of the config --serve's moonbridge gets log players in online at
// sessions (when set).
func (f *loginFlags) served(c *servedConfig, sessions *authfake.SessionServer) {
	if sessions != nil {
		c.online = &onlineRoute{sessionServer: sessions.URL, forwarding: f.forwarding}
	}
}

// proxyDialer is how the proxy phase's players reach the relay: through the online login when
// sessions is set.
func proxyDialer(d client.Dialer, sessions *authfake.SessionServer) client.Dialer {
	if sessions == nil {
		return d
	}
	return client.Online{Dialer: d, Sessions: sessions}
}
