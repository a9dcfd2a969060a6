package routebook

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/cfb8"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/routes"
)

// routeLogins makes each route's login settings (nil for auth passthrough). Online logins take
// their Encryption Requests' RSA key from keys. cookies, if any, check the cookies of transfer
// logins (shutdown.transfer_secret_file).
func routeLogins(list []config.Route, login config.Login, keys onlineKeys, cookies *relay.TransferCookies) ([]*auth.Config, error) {
	choice, err := cfb8.Choose(cfb8.Impl(login.Cipher))
	if err != nil {
		return nil, fmt.Errorf("login.cipher: %w", err)
	}
	out := make([]*auth.Config, len(list))
	for i, r := range list {
		if r.Auth == routes.AuthPassthrough || r.Auth == "" {
			continue
		}
		c, err := routeLogin(r, login)
		if err != nil {
			return nil, fmt.Errorf("routes[%d]: %w", i, err)
		}
		if c.Online {
			if c.Keys, err = keys(); err != nil {
				return nil, err
			}
		}
		c.NewCipher, c.CipherImpl = choice.NewPair, choice.Impl
		if cookies != nil { // a nil pointer in the interface would be a checker
			c.TransferCookies = cookies
		}
		out[i] = c
	}
	return out, nil
}

// onlineKeys is one load's RSA key for the Encryption Requests of online logins: read from
// login.key_file or made at its first use, only when a route runs online logins, then the
// same for every route of the load (the routes API's and the sources' too, book.go).
// Its first use logs the cipher login.cipher chose (mc/cfb8's Choose).
type onlineKeys func() (*auth.Keys, error)

func newOnlineKeys(login config.Login, log zerolog.Logger) onlineKeys {
	return sync.OnceValues(func() (*auth.Keys, error) {
		keys, err := loginKeys(login.KeyFile)
		if err != nil {
			return nil, err
		}
		if choice, err := cfb8.Choose(cfb8.Impl(login.Cipher)); err == nil {
			log.Info().Str("login_cipher", choice.Impl.String()).Str("reason", choice.Reason).
				Msg("Online logins encrypt with " + choice.Impl.String() + "'s AES/CFB8")
		}
		return keys, nil
	})
}

func routeLogin(r config.Route, login config.Login) (*auth.Config, error) {
	c := &auth.Config{
		Online:     r.Auth == routes.AuthOnline,
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
