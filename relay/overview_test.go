package relay

import (
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// Overview counts the players of each route, says which backends their checks keep out, and
// what has been relayed, live sessions included.
func TestOverviewCountsPlayersBackendsAndBytes(t *testing.T) {
	game, dead := startGameServer(t, paperStatus), testutil.ClosedPort(t)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = []Route{
			{Name: "lobby", Hosts: []string{"lobby"}, MaxPlayers: 10, Backends: []pool.Backend{{Addr: game}}},
			{Hosts: []string{"down"}, Backends: []pool.Backend{{Addr: dead}},
				HealthCheck: pool.HealthCheck{Mode: pool.HealthTCP, Interval: 20 * time.Millisecond, Fall: 1}},
		}
	}, Minecraft)
	exchange(t, dialFrom(t, "127.0.9.1", addr), "lobby", 100)
	exchange(t, dialFrom(t, "127.0.9.2", addr), "lobby", 100)
	testutil.WaitFor(t, "the dead backend out", func() bool { return !srv.Overview().Routes[1].Backends[0].Up })
	// A pump or loop counts what it wrote after the write: the player may read the echo first.
	testutil.WaitFor(t, "the echoes counted", func() bool { return srv.Overview().RelayedDown >= 2*100 })
	o := srv.Overview()
	if len(o.Routes) != 2 || o.Players != 2 || o.Sessions != 2 || o.AttackMode || o.Blocked != 0 {
		t.Fatalf("overview %+v", o)
	}
	lobby, down := o.Routes[0], o.Routes[1]
	if lobby.Label != "lobby" || lobby.Players != 2 || lobby.MaxPlayers != 10 || len(lobby.Backends) != 1 {
		t.Errorf("lobby %+v", lobby)
	}
	if b := lobby.Backends[0]; b != (pool.BackendState{Addr: game, Up: true, Sessions: 2}) {
		t.Errorf("lobby's backend %+v, want up, unchecked, 2 sessions", b)
	}
	if down.Label != "down" || down.Players != 0 || down.Backends[0] != (pool.BackendState{Addr: dead, Checked: true}) {
		t.Errorf("down %+v", down)
	}
	// Each player sent a handshake and 100 bytes, and got the 100 bytes back.
	if o.RelayedUp < 2*100 || o.RelayedDown != 2*100 {
		t.Errorf("relayed up %d, down %d; want over 200 up and 200 down", o.RelayedUp, o.RelayedDown)
	}
}
