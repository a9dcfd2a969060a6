package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/mc/auth"
)

func TestRouteLogins(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("s3cret\r\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	route := func(authMode string, fwd auth.Forwarding, file string) config.Route {
		r := config.DefaultRoute("127.0.0.1:25565")
		r.Auth, r.Forwarding, r.VelocitySecretFile = authMode, fwd, file
		return r
	}
	login := config.Default().Login
	var log bytes.Buffer
	logins, err := routeLogins([]config.Route{
		route(config.AuthPassthrough, auth.ForwardNone, ""),
		route(config.AuthOnline, auth.ForwardVelocity, secret),
		route(config.AuthOnline, auth.ForwardBungeeCord, ""),
		route(config.AuthOffline, auth.ForwardBungeeCord, ""),
	}, login, zerolog.New(&log))
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
	if _, err := routeLogins([]config.Route{route(config.AuthOnline, auth.ForwardVelocity, empty)}, login, zerolog.Nop()); err == nil {
		t.Error("an empty velocity secret was taken")
	}
	if want := map[bool]string{true: "boringssl", false: "go"}[gossl.CFB8Accelerated()]; !strings.Contains(log.String(), `"login_cipher":"`+want+`"`) {
		t.Errorf("the startup log %q does not name auto's cipher %s", log.String(), want)
	}
}

// TestLoginCipher: go is auth's default (nil), boringssl is gossl's streams or, in a pure-Go
// build, a load error that says what to do; auto follows the build.
func TestLoginCipher(t *testing.T) {
	if c, err := loginCipher(config.CipherGo); err != nil || c.newPair != nil || c.name != "go" {
		t.Errorf("go: %+v %v, want auth's default", c, err)
	}
	c, err := loginCipher(config.CipherBoringSSL)
	switch {
	case !gossl.BoringEnabled && (!errors.Is(err, gossl.ErrCFB8NotCompiled) || !strings.Contains(err.Error(), "make build")):
		t.Errorf("boringssl in a pure-Go build: %v, want ErrCFB8NotCompiled naming `make build`", err)
	case gossl.BoringEnabled && (err != nil || c.newPair == nil):
		t.Errorf("boringssl: %+v %v", c, err)
	case gossl.BoringEnabled:
		enc, _, err := c.newPair(make([]byte, 16))
		if _, closes := enc.(io.Closer); err != nil || !closes {
			t.Errorf("boringssl's pair: %T %v, want gossl's closable streams", enc, err)
		}
	}
	// auto picks the shim's CFB8 where it is accelerated, Go's elsewhere
	// (bench/results/2026-11-30-cfb8-vector-register.md).
	auto, err := loginCipher(config.CipherAuto)
	if want := map[bool]string{true: "boringssl", false: "go"}[gossl.CFB8Accelerated()]; err != nil || auto.name != want || (auto.newPair != nil) != gossl.CFB8Accelerated() {
		t.Errorf("auto: %+v %v, want %s", auto, err, want)
	}
}
