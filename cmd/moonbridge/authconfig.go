package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/cfb8"
	"github.com/moonbridge/moonbridge/relay"
)

// routeLogins makes each route's login settings (nil for auth passthrough). The RSA key of the
// Encryption Requests is read from login.key_file or made once per load, and only when a route
// runs online logins; then the cipher login.cipher chose (mc/cfb8's Choose) is logged. cookies,
// if any, check the cookies of transfer logins (shutdown.transfer_secret_file).
func routeLogins(routes []config.Route, login config.Login, cookies *relay.TransferCookies, log zerolog.Logger) ([]*auth.Config, error) {
	choice, err := cfb8.Choose(cfb8.Impl(login.Cipher))
	if err != nil {
		return nil, fmt.Errorf("login.cipher: %w", err)
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
		c.NewCipher = choice.NewPair
		if cookies != nil { // a nil pointer in the interface would be a checker
			c.TransferCookies = cookies
		}
		out[i] = c
	}
	if keys != nil {
		log.Info().Str("login_cipher", choice.Impl.String()).Str("reason", choice.Reason).
			Msg("Online logins encrypt with " + choice.Impl.String() + "'s AES/CFB8")
	}
	return out, nil
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
