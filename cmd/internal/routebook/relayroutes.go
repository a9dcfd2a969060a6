package routebook

import (
	"fmt"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/discover/docker"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/routes"
)

// FileRoutes is the config file's routes as the relay takes them; cookies, if any, check the
// cookies of transfer logins. Online logins read or make their key (login.key_file) at the
// first one.
func FileRoutes(cfg config.Config, cookies *relay.TransferCookies, log zerolog.Logger) ([]relay.Route, error) {
	return build(cfg.Routes, cfg, newOnlineKeys(cfg.Login, log), cookies)
}

// build is list, the file's routes or those of elsewhere that the book serves, as the relay takes
// them: the one place a relay.Route is made from a config.Route. Logins share cfg's login
// section, keys and cookies; a wake.container goes through cfg's Docker engine.
func build(list []config.Route, cfg config.Config, keys onlineKeys, cookies *relay.TransferCookies) ([]relay.Route, error) {
	logins, err := routeLogins(list, cfg.Login, keys, cookies)
	if err != nil {
		return nil, err
	}
	return relayRoutes(list, logins, cfg.Discovery.Docker.Endpoint)
}

// relayRoutes turns list into the relay's routes; logins[i] is route i's login (nil: the
// login passes through), or logins is nil for none. A wake.container is started and stopped
// through the engine at engine.
func relayRoutes(list []config.Route, logins []*auth.Config, engine docker.Endpoint) ([]relay.Route, error) {
	out := make([]relay.Route, 0, len(list))
	for i, r := range list {
		rr := relay.Route{Name: r.Name, Hosts: r.Hosts, Paths: r.Paths, RewriteHost: r.RewriteHost, MaxConnections: r.MaxConnections, MaxPlayers: r.MaxPlayers, HealthCheck: pool.HealthCheck{
			Mode: pool.HealthMode(r.HealthCheck.Mode), Interval: r.HealthCheck.Interval, Timeout: r.HealthCheck.Timeout,
			Rise: r.HealthCheck.Rise, Fall: r.HealthCheck.Fall,
		}, StatusCache: r.StatusCache, Balance: pool.Balance(r.Balance)}
		if logins != nil {
			rr.Login = logins[i]
		}
		if w := r.Wake; w.On() {
			rr.Wake = &pool.Wake{Command: w.Command, Webhook: w.Webhook, ReadyTimeout: w.ReadyTimeout, StopAfterIdle: w.StopAfterIdle,
				StopCommand: w.StopCommand, Hold: w.Hold, StartingMOTD: w.StartingMOTD, StartingMessage: w.StartingMessage}
			if w.Container != "" {
				rr.Wake.Runtime = docker.Container{Endpoint: engine, ID: w.Container}
			}
		}
		if r.Fallback == routes.FallbackLastKnown {
			rr.LastKnown = &relay.LastKnown{MOTDPrefix: r.LastKnown.MOTDPrefix, VersionName: r.LastKnown.VersionName}
		}
		for _, addr := range r.Backends {
			rr.Backends = append(rr.Backends, pool.Backend{Addr: addr, ProxyProtocol: int(r.SendProxy)})
		}
		var err error
		if rr.Access, err = relayAccess(r.Access); err != nil {
			return nil, fmt.Errorf("routes[%d].access: %w", i, err)
		}
		if rr.Countries, err = relay.ParseCountries(r.Countries.Allow, r.Countries.Deny); err != nil {
			return nil, fmt.Errorf("routes[%d].countries: %w", i, err)
		}
		if rr.Status, err = relayStatus(r.Status); err != nil {
			return nil, fmt.Errorf("routes[%d].status: %w", i, err)
		}
		out = append(out, rr)
	}
	return out, nil
}

// relayAccess is a route's access section as the relay takes it.
func relayAccess(a routes.Access) (relay.Access, error) {
	allow, err := clientaddr.ParseNets("allow entry", a.Allow)
	if err != nil {
		return relay.Access{}, err
	}
	deny, err := clientaddr.ParseNets("deny entry", a.Deny)
	if err != nil {
		return relay.Access{}, err
	}
	return relay.Access{Tokens: a.Tokens, Allow: allow, Deny: deny}, nil
}
