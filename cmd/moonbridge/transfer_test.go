package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

// fakeRouteMover moves the players of route "survival": two go, one stays.
type fakeRouteMover struct{ target bool }

func (f fakeRouteMover) MoveRoute(route string) (relay.RouteMoves, error) {
	switch {
	case !f.target:
		return relay.RouteMoves{}, relay.ErrNoTransferTarget
	case route != "survival":
		return relay.RouteMoves{}, &relay.UnknownRouteError{Route: route}
	}
	return relay.RouteMoves{Route: route, Transferring: 2, Staying: 1}, nil
}

// TestAdminTransfersTheRoutesPlayers: POST /transfer?route= moves a route's players and says how
// many; a missing route, an unknown one, no transfer target and a cross-site POST are refused.
func TestAdminTransfersTheRoutesPlayers(t *testing.T) {
	for _, c := range []struct {
		target bool
		method string
		path   string
		header http.Header
		code   int
		body   string
	}{
		{true, "POST", "/transfer?route=survival", nil, 200, `{"route":"survival","transferring":2,"staying":1}`},
		{true, "POST", "/transfer", nil, 400, "name the route: POST /transfer?route=<label>"},
		{true, "POST", "/transfer?route=creative", nil, 404, `no route is labelled "creative"`},
		{false, "POST", "/transfer?route=survival", nil, 409, "no transfer target: set shutdown.transfer_to"},
		{true, "POST", "/transfer?route=survival", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403, ""},
		{true, "GET", "/transfer?route=survival", nil, 405, ""},
	} {
		mux := http.NewServeMux()
		handleTransfer(mux, fakeRouteMover{target: c.target}, zerolog.Nop())
		server := httptest.NewServer(newAdminGuard(config.Admin{}, zerolog.Nop()).wrap(mux))
		code, body := adminRequest(t, server, c.method, c.path, c.header)
		server.Close()
		if code != c.code || c.body != "" && body != c.body {
			t.Errorf("%s %s (target %v): %d %q, want %d %q", c.method, c.path, c.target, code, body, c.code, c.body)
		}
	}
}

// TestRelayTransferReadsTheSecretFile: the shutdown section becomes the relay's Transfer, with
// cookies signed by the file's secret (its line end trimmed); an empty file, or one shorter
// than 16 bytes, is refused.
func TestRelayTransferReadsTheSecretFile(t *testing.T) {
	dir := t.TempDir()
	secret, empty := filepath.Join(dir, "secret"), filepath.Join(dir, "empty")
	os.WriteFile(secret, []byte("0123456789abcdef\n"), 0o600)
	os.WriteFile(empty, []byte("\n"), 0o600)
	tr, err := relayTransfer(config.Shutdown{TransferTo: "play.example.net:25565", TransferSecretFile: secret})
	if err != nil || tr.Host != "play.example.net" || tr.Port != 25565 || tr.Cookies == nil {
		t.Fatalf("transfer %+v, %v", tr, err)
	}
	if tr, err := relayTransfer(config.Shutdown{}); err != nil || tr.Enabled() || tr.Cookies != nil {
		t.Errorf("no transfer keys: %+v, %v; want nobody moved, no cookies", tr, err)
	}
	if _, err := relayTransfer(config.Shutdown{TransferTo: "a:1", TransferSecretFile: empty}); err == nil || !strings.Contains(err.Error(), "holds 0 bytes of secret; want at least 16") {
		t.Errorf("empty secret file: %v", err)
	}
}
