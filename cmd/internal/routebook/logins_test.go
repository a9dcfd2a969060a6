package routebook

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/cfb8"
	"github.com/moonbridge/moonbridge/routes"
)

func TestRouteLogins(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("s3cret\r\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	route := func(authMode string, fwd auth.Forwarding, file string) config.Route {
		r := routes.Default("127.0.0.1:25565")
		r.Auth, r.Forwarding, r.VelocitySecretFile = authMode, fwd, file
		return r
	}
	login := config.Default().Login
	var log bytes.Buffer
	logins, err := routeLogins([]config.Route{
		route(routes.AuthPassthrough, auth.ForwardNone, ""),
		route(routes.AuthOnline, auth.ForwardVelocity, secret),
		route(routes.AuthOnline, auth.ForwardBungeeCord, ""),
		route(routes.AuthOffline, auth.ForwardBungeeCord, ""),
	}, login, newOnlineKeys(login, zerolog.New(&log)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if logins[0] != nil {
		t.Error("passthrough got a login")
	}
	if v := logins[1]; v == nil || !v.Online || v.Forwarding != auth.ForwardVelocity || string(v.VelocitySecret) != "s3cret" || v.Keys == nil {
		t.Errorf("online velocity: %+v (the secret without its line end, and a key)", v)
	}
	if logins[2].Keys != logins[1].Keys {
		t.Error("two online routes got two keys")
	}
	if o := logins[3]; o.Online || o.Keys != nil || o.Forwarding != auth.ForwardBungeeCord {
		t.Errorf("offline bungeecord: %+v", o)
	}
	if o := logins[1]; o.Sessions.BaseURL != "https://sessionserver.mojang.com" || o.Sessions.Timeout != login.SessionTimeout {
		t.Errorf("session server %+v", o.Sessions)
	}
	if _, err := routeLogins([]config.Route{route(routes.AuthOnline, auth.ForwardVelocity, empty)}, login, newOnlineKeys(login, zerolog.Nop()), nil); err == nil {
		t.Error("an empty velocity secret was taken")
	}
	if want := map[bool]string{true: "boringssl", false: "go"}[cfb8.BoringAccelerated()]; !strings.Contains(log.String(), `"login_cipher":"`+want+`"`) {
		t.Errorf("the startup log %q does not name auto's cipher %s", log.String(), want)
	}
}
