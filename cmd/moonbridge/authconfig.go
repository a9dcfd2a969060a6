package main

import (
	"crypto/cipher"
	"fmt"
	"os"
	"strings"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/mc/auth"
)

// routeLogins makes each route's login settings (nil for auth passthrough). The RSA key of the
// Encryption Requests is read from login.key_file or made once per load, and only when a route
// runs online logins; then the cipher login.cipher chose is logged.
func routeLogins(routes []config.Route, login config.Login, log zerolog.Logger) ([]*auth.Config, error) {
	choice, err := loginCipher(login.Cipher)
	if err != nil {
		return nil, err
	}
	out := make([]*auth.Config, len(routes))
	var keys *auth.Keys
	for i, r := range routes {
		if r.Auth == config.AuthPassthrough || r.Auth == "" {
			continue
		}
		c, err := routeLogin(r, login)
		if err != nil {
			return nil, fmt.Errorf("routes[%d]: %w", i, err)
		}
		if c.Online {
			if keys == nil {
				if keys, err = loginKeys(login.KeyFile); err != nil {
					return nil, err
				}
			}
			c.Keys = keys
		}
		c.NewCipher = choice.newPair
		out[i] = c
	}
	if keys != nil {
		log.Info().Str("login_cipher", choice.name).Str("reason", choice.reason).
			Msg("Online logins encrypt with " + choice.name + "'s AES/CFB8")
	}
	return out, nil
}

// cipherChoice is login.cipher resolved: the player side's AES/CFB8 pair constructor (nil:
// auth's default, Go's), its name and why.
type cipherChoice struct {
	newPair      func(key []byte) (enc, dec cipher.Stream, err error)
	name, reason string
}

// cipherRecord is the benchmark record behind auto's choice.
const cipherRecord = "bench/results/2026-11-30-cfb8-vector-register.md"

// loginCipher resolves login.cipher; boringssl fails in a build without BoringSSL.
func loginCipher(name string) (cipherChoice, error) {
	boring := cipherChoice{newPair: gossl.NewCFB8Pair, name: config.CipherBoringSSL}
	goCipher := cipherChoice{name: config.CipherGo}
	switch {
	case name == config.CipherGo:
		goCipher.reason = "login.cipher is go"
		return goCipher, nil
	case name == config.CipherBoringSSL && !gossl.BoringEnabled:
		return cipherChoice{}, fmt.Errorf("login.cipher: %w", gossl.ErrCFB8NotCompiled)
	case name == config.CipherBoringSSL:
		boring.reason = "login.cipher is boringssl"
		return boring, nil
	}
	// auto's choice is set by bench/results/2026-11-30-cfb8-vector-register.md: the shim's CFB8
	// where it runs AES-NI with the register in a vector register; elsewhere Go's, which costs
	// the same as BoringSSL's AES_encrypt per byte (bench/results/2026-11-30-cfb8-cipher.md)
	// and keeps no C state per session.
	if gossl.CFB8Accelerated() {
		boring.reason = "auto: the shim's AES-NI CFB8 is the fastest here (" + cipherRecord + ")"
		return boring, nil
	}
	goCipher.reason = "auto: this CPU or build has no accelerated CFB8 in the shim, and Go's costs the same as BoringSSL's AES per byte"
	return goCipher, nil
}

func routeLogin(r config.Route, login config.Login) (*auth.Config, error) {
	c := &auth.Config{
		Online:     r.Auth == config.AuthOnline,
		Forwarding: r.Forwarding,
		Sessions:   auth.SessionServer{BaseURL: strings.TrimRight(login.SessionServer, "/"), Timeout: login.SessionTimeout},
		SendIP:     login.PreventProxyConnections,
	}
	if r.Forwarding == auth.ForwardVelocity {
		secret, err := os.ReadFile(r.VelocitySecretFile)
		if err != nil {
			return nil, fmt.Errorf("velocity_secret_file: %w", err)
		}
		if c.VelocitySecret = []byte(strings.TrimRight(string(secret), "\r\n")); len(c.VelocitySecret) == 0 {
			return nil, fmt.Errorf("velocity_secret_file %s is empty", r.VelocitySecretFile)
		}
	}
	return c, nil
}

func loginKeys(path string) (*auth.Keys, error) {
	if path == "" {
		return auth.NewKeys()
	}
	return auth.LoadKeys(path)
}
