package relay

import (
	"testing"
	"time"
)

// A route's own status fields replace the server's on every answer while the rest stays the
// server's; with the proxy's count and the owner's max, the player line is the proxy's.
func TestRouteStatusReplacesTheServersFields(t *testing.T) {
	backend := startLiveStatusServer(t, paperStatus)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.ln.Addr().String())
		c.Routes[0].Status = RouteStatus{MOTD: []byte(`{"text":"Owner's","color":"gold"}`), Favicon: "data:image/png;base64,BBBB",
			VersionName: "Lobby 1.21", ProxyOnline: true, MaxPlayers: 500}
		c.Routes[0].LastKnown = &LastKnown{MOTDPrefix: "[offline] ", VersionName: "offline"}
	}, Minecraft)
	status := pingStatus(t, Minecraft, addr, "play.example.net")
	want := map[string]any{
		"description": map[string]any{"text": "Owner's", "color": "gold"},
		"favicon":     "data:image/png;base64,BBBB",
		"version":     map[string]any{"name": "Lobby 1.21", "protocol": 767},
		"players":     map[string]any{"max": 500, "online": 0},
	}
	if got := jsonText(t, status); got != jsonText(t, want) {
		t.Fatalf("the route answered %s, want %s", got, jsonText(t, want))
	}
	backend.ln.Close()
	status = pingStatus(t, Minecraft, addr, "play.example.net")
	want["description"] = map[string]any{"text": "[offline] ", "extra": []any{map[string]any{"text": "Owner's", "color": "gold"}}}
	want["version"] = map[string]any{"name": "offline", "protocol": -1}
	if got := jsonText(t, status); got != jsonText(t, want) {
		t.Errorf("with the backend down the route answered %s, want the owner's answer marked offline %s", got, jsonText(t, want))
	}
}

// Fields left empty keep the server's; the owner's max alone keeps the server's count.
func TestRouteStatusKeepsWhatItDoesNotSet(t *testing.T) {
	backend := startLiveStatusServer(t, paperStatus)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.ln.Addr().String())
		c.Routes[0].Status = RouteStatus{MaxPlayers: 100}
		c.Routes[0].StatusCache = time.Hour
	}, Minecraft)
	status := pingStatus(t, Minecraft, addr, "play.example.net")
	want := mustJSON(t, paperStatus)
	want["players"] = map[string]any{"max": 100, "online": 3}
	if got := jsonText(t, status); got != jsonText(t, want) {
		t.Errorf("the route answered %s, want the server's answer with max 100: %s", got, jsonText(t, want))
	}
}
