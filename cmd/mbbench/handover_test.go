package main

import (
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/routes"
)

// The config mbbench handover writes is one moonbridge loads: the connect loop's route first,
// the event loops, the stay asked for, info lines; with --auth online the players' route runs
// the login against the fake session server, and the ping route does not.
func TestHandoverConfigLoads(t *testing.T) {
	for _, online := range []*onlineRoute{nil, {sessionServer: "http://127.0.0.1:25568", forwarding: "bungeecord"}} {
		text, err := handoverConfig(servedConfig{online: online}, "127.0.0.1:25566", "127.0.0.1:25567", 7*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Parse([]byte(text), func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if len(cfg.Routes) != 2 || cfg.Routes[0].Hosts[0] != handoverPingHost || cfg.Routes[1].Hosts[0] != "*" {
			t.Errorf("routes %+v", cfg.Routes)
		}
		if cfg.Relay.DataPath != relay.DataPath("loop") || cfg.Upgrade.Stay != 7*time.Minute || cfg.Log.Level != "info" {
			t.Errorf("data path %q, stay %v, log level %q", cfg.Relay.DataPath, cfg.Upgrade.Stay, cfg.Log.Level)
		}
		wantAuth := routes.AuthPassthrough
		if online != nil {
			wantAuth = routes.AuthOnline
		}
		if cfg.Routes[1].Auth != wantAuth || cfg.Routes[0].Auth != routes.AuthPassthrough || online != nil && cfg.Login.SessionServer != online.sessionServer {
			t.Errorf("online %v: players' auth %q, ping's %q, session server %q", online != nil, cfg.Routes[1].Auth, cfg.Routes[0].Auth, cfg.Login.SessionServer)
		}
	}
}

func TestHandoverCommandLineMistakesExit2(t *testing.T) {
	for _, args := range [][]string{{"handover"}, {"handover", "--serve", "bin/moonbridge"}, {"handover", "--serve", "x", "--tcp", "1", "--upgrades", "0"}} {
		code, stdout, stderr := mbbench(args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("mbbench %s: exit %d, stdout %q, stderr %q; want 2 and only stderr", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
