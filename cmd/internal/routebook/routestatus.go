package routebook

import (
	"fmt"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/routes"
)

// relayStatus is a route's status section as the relay takes it: its MOTD as a text
// component and its icon file read (checked as config.ReadIcon does).
func relayStatus(s routes.Status) (relay.RouteStatus, error) {
	out := relay.RouteStatus{VersionName: s.VersionName, ProxyOnline: s.Online == routes.OnlineProxy, MaxPlayers: s.MaxPlayers}
	var err error
	if s.MOTD != "" {
		if out.MOTD, err = mc.ParseText(s.MOTD); err != nil {
			return out, fmt.Errorf("motd: %w", err)
		}
	}
	if s.Icon != "" {
		if out.Favicon, err = config.ReadIcon(s.Icon); err != nil {
			return out, err
		}
	}
	return out, nil
}
