package relay

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// statusPath is one way a route's server-list ping is answered: the route's settings, what is
// done to the replicas once the players are in, the ping's online count and the count it
// should show (the network's, or the server's own).
type statusPath struct {
	name   string
	route  func(*Route)
	before func(t *testing.T, nodes []*replica, game *gameServer)
	online func(t *testing.T, r *replica) float64
	want   float64
}

// The counts of TestReplicasStatusShowsTheNetworkCount: the server's own answer says 3, and
// the route has 1 player on one replica and 4 on the other.
const networkOnline, serverOnline = 5, 3

// modernOnline is the online count of a status ping's answer.
func modernOnline(t *testing.T, r *replica) float64 { return onlineOn(t, r) }

// legacyOnline is the online count of a legacy ping's kick (§1, protocol, version, MOTD,
// online, max).
func legacyOnline(t *testing.T, r *replica) float64 {
	fields := strings.Split(legacyPing(t, r.addr), "\x00")
	if len(fields) != 6 {
		t.Fatalf("legacy kick %q: want 6 fields", fields)
	}
	var n float64
	if _, err := fmt.Sscan(fields[4], &n); err != nil {
		t.Fatalf("legacy kick's online %q: %v", fields[4], err)
	}
	return n
}

// lastKnownOnline is the online count of a status answer that must be the last known one.
func lastKnownOnline(t *testing.T, r *replica) float64 {
	status := pingStatus(t, Minecraft, r.addr, "h")
	if name := status["version"].(map[string]any)["name"]; name != "offline" {
		t.Fatalf("version %q, want the last known answer's \"offline\"", name)
	}
	return status["players"].(map[string]any)["online"].(float64)
}

// secondOnline is the online count of a second status ping, answered from the status cache.
func secondOnline(t *testing.T, r *replica) float64 { onlineOn(t, r); return onlineOn(t, r) }

func noRouteSettings(*Route) {}

var statusPaths = []statusPath{
	{name: "max_players", route: func(r *Route) { r.MaxPlayers = 100 }, online: modernOnline, want: networkOnline},
	{name: "status online proxy", route: func(r *Route) { r.Status.ProxyOnline = true }, online: modernOnline, want: networkOnline},
	{name: "status max_players", route: func(r *Route) { r.Status.MaxPlayers = 500; r.Status.ProxyOnline = true },
		online: modernOnline, want: networkOnline},
	{name: "status_cache", route: func(r *Route) { r.MaxPlayers, r.StatusCache = 100, time.Hour }, online: secondOnline, want: networkOnline},
	{name: "legacy ping", route: func(r *Route) { r.MaxPlayers = 100 }, online: legacyOnline, want: networkOnline},
	{name: "attack mode", route: func(r *Route) { r.MaxPlayers = 100 }, online: modernOnline, want: networkOnline,
		before: func(t *testing.T, nodes []*replica, _ *gameServer) {
			for _, n := range nodes {
				n.srv.attack.on.Store(true)
			}
		}},
	{name: "maintenance", route: func(r *Route) { r.MaxPlayers = 100 }, online: modernOnline, want: networkOnline,
		before: func(t *testing.T, nodes []*replica, _ *gameServer) {
			for _, n := range nodes {
				n.srv.SetMaintenance(Maintenance{Routes: map[string]*MaintenanceMode{"survival": workMode(t)}})
			}
		}},
	{name: "last known", online: lastKnownOnline, want: networkOnline,
		route: func(r *Route) { r.MaxPlayers, r.LastKnown = 100, &LastKnown{VersionName: "offline"} },
		before: func(t *testing.T, nodes []*replica, game *gameServer) {
			for _, n := range nodes {
				onlineOn(t, n) // a live answer, kept
			}
			game.statusDown.Store(true)
		}},
	// The server's own count, which is that server's real count, where the route keeps it.
	{name: "relayed to the server", route: noRouteSettings, online: modernOnline, want: serverOnline},
	{name: "status_cache alone", route: func(r *Route) { r.StatusCache = time.Hour }, online: secondOnline, want: serverOnline},
	{name: "status version alone", route: func(r *Route) { r.Status.VersionName = "Network" }, online: modernOnline, want: serverOnline},
	{name: "legacy ping relayed", route: noRouteSettings, online: legacyOnline, want: serverOnline},
}

// Issue 42: wherever the proxy puts its own player line in a route's server-list answer
// (max_players, status online: proxy, on a live, cached, legacy, attack mode or maintenance
// answer), it counts the route's players on every replica; elsewhere the server's own count
// passes through.
func TestReplicasStatusShowsTheNetworkCount(t *testing.T) {
	for _, path := range statusPaths {
		t.Run(path.name, func(t *testing.T) {
			game := startSwitchableGameServer(t, paperStatus)
			_, nodes := startNetwork(t, 2, func(c *Config) {
				c.Routes = routeTo(game.addr)
				c.Routes[0].Name = "survival"
				path.route(&c.Routes[0])
			})
			for i, perNode := range []int{1, 4} {
				for j := range perNode {
					if !join(t, fmt.Sprintf("127.0.47.%d", 10*i+j+1), nodes[i].addr) {
						t.Fatal("a join was refused")
					}
				}
			}
			waitForNetworkPlayers(t, nodes, networkOnline)
			if path.before != nil {
				path.before(t, nodes, game)
			}
			for i, r := range nodes {
				if got := path.online(t, r); got != path.want {
					t.Errorf("replica %d answered %v online, want %v (the network's %d, the server's %d)", i, got, path.want, networkOnline, serverOnline)
				}
			}
		})
	}
}
