package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// serverURL is the server's WebSocket URL for the address a player typed:
//
//	typed                               URL
//	wss://play.example.net/game         as it is (ws:// too)
//	https://play.example.net/game       wss://play.example.net/game (http:// is ws://)
//	play.example.net[:8443]             wss://play.example.net[:8443]/mc
//	play.example.net/game               wss://play.example.net/game
//
// An address with no path at all gets the one moonbridge serve answers on by default
// (websocket.path, /mc); "HOST/" keeps the path "/".
func serverURL(typed string) (string, error) {
	s := strings.TrimSpace(typed)
	switch {
	case s == "":
		return "", errors.New("nothing was typed")
	case strings.ContainsAny(s, " \t"):
		return "", fmt.Errorf("%q has a space in it", s)
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		scheme, rest = "wss", s
	}
	switch strings.ToLower(scheme) {
	case "wss", "https":
		scheme = "wss"
	case "ws", "http":
		scheme = "ws"
	default:
		return "", fmt.Errorf("%q: a server address is a name such as play.example.net, or starts with wss://", s)
	}
	if !strings.Contains(rest, "/") {
		rest += config.Default().WebSocket.Path
	}
	u, err := url.Parse(scheme + "://" + rest)
	if err != nil || u.Hostname() == "" {
		return "", fmt.Errorf("%q is not a server address such as play.example.net", s)
	}
	return u.String(), nil
}
