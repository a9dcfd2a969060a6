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

// fakeRouteMover moves the players of route "survival": two go, one stays; its own listener
// is 127.0.0.1:25565.
type fakeRouteMover struct{}

func (fakeRouteMover) MoveRoute(route, host string, port uint16) (relay.RouteMoves, error) {
	switch {
	case route != "survival":
		return relay.RouteMoves{}, &relay.UnknownRouteError{Route: route}
	case host == "127.0.0.1" && port == 25565:
		return relay.RouteMoves{}, &relay.OwnListenerError{To: "127.0.0.1:25565", Listener: "127.0.0.1:25565"}
	}
	return relay.RouteMoves{Route: route, To: host + ":25565", Transferring: 2, Staying: 1}, nil
}

// TestAdminTransfersTheRoutesPlayers: POST /transfer?route=&to= moves a route's players to
// another instance and says how many; a missing route, an unknown one, a missing or malformed
// to, this instance's own address and a cross-site POST are refused, saying why.
func TestAdminTransfersTheRoutesPlayers(t *testing.T) {
	for _, c := range []struct {
		method string
		path   string
		header http.Header
		code   int
		body   string // in the answer
	}{
		{"POST", "/transfer?route=survival&to=live.example.net:25565", nil, 200, `{"route":"survival","to":"live.example.net:25565","transferring":2,"staying":1}`},
		{"POST", "/transfer?to=live.example.net:25565", nil, 400, "name the route"},
		{"POST", "/transfer?route=creative&to=live.example.net:25565", nil, 404, `no route is labelled "creative"`},
		{"POST", "/transfer?route=survival", nil, 400, "the address of another instance"},
		{"POST", "/transfer?route=survival&to=live.example.net", nil, 400, "want host:port"},
		{"POST", "/transfer?route=survival&to=127.0.0.1:25565", nil, 409, "come straight back to the same route"},
		{"POST", "/transfer?route=survival&to=live.example.net:25565", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403, ""},
		{"GET", "/transfer?route=survival&to=live.example.net:25565", nil, 405, ""},
	} {
		mux := http.NewServeMux()
		handleTransfer(mux, fakeRouteMover{}, zerolog.Nop())
		server := httptest.NewServer(newAdminGuard(config.Admin{}, zerolog.Nop()).wrap(mux))
		code, body := adminRequest(t, server, c.method, c.path, c.header)
		server.Close()
		if code != c.code || !strings.Contains(body, c.body) {
			t.Errorf("%s %s: %d %q, want %d with %q", c.method, c.path, code, body, c.code, c.body)
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
