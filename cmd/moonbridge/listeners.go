package main

import (
	"fmt"
	"net"
	"strings"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// bindListeners opens every configured listener and logs one line for each.
func bindListeners(cfg config.Config, log zerolog.Logger) ([]net.Listener, error) {
	var opened []net.Listener
	for _, l := range cfg.Listeners {
		ln, err := net.Listen("tcp", l.Listen)
		if err != nil {
			closeAll(opened)
			return nil, fmt.Errorf("listen on %s: %w", l.Listen, err)
		}
		opened = append(opened, ln)
		log.Info().Str("addr", ln.Addr().String()).Str("protocols", strings.Join(l.Protocols, ",")).
			Msg("Listening")
		go refuseAll(ln, log)
	}
	return opened, nil
}

// refuseAll accepts and closes connections until the listener is closed.
func refuseAll(ln net.Listener, log zerolog.Logger) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		log.Info().Str("client", conn.RemoteAddr().String()).Msg("closing connection: relay not implemented yet")
		conn.Close()
	}
}

func closeAll(listeners []net.Listener) {
	for _, ln := range listeners {
		ln.Close()
	}
}
