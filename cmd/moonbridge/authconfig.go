package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay/auth"
)

// routeLogins makes each route's login settings (nil for auth passthrough). The RSA key of the
// Encryption Requests is read from login.key_file or made once per load, and only when a route
// runs online logins.
func routeLogins(routes []config.Route, login config.Login) ([]*auth.Config, error) {
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
		out[i] = c
	}
	return out, nil
}

func routeLogin(r config.Route, login config.Login) (*auth.Config, error) {
	fwd, err := auth.ParseForwarding(r.Forwarding)
	if err != nil {
		return nil, err
	}
	c := &auth.Config{
		Online:     r.Auth == config.AuthOnline,
		Forwarding: fwd,
		Sessions:   auth.SessionServer{BaseURL: strings.TrimRight(login.SessionServer, "/"), Timeout: login.SessionTimeout},
		SendIP:     login.PreventProxyConnections,
	}
	if fwd == auth.ForwardVelocity {
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
