package config

import (
	"strings"
	"testing"
)

func TestLimitKeys(t *testing.T) {
	cfg, err := Parse([]byte("limits:\n  connection_rate_per_ip: 2.5\n  connection_burst_per_ip: 4\n"+
		"routes:\n  - hosts: [\"*\"]\n    backends: [127.0.0.1:25565]\n    max_connections: 20\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Limits.IPv6Prefix != 64 {
		t.Errorf("ipv6_prefix %d by default, want 64", cfg.Limits.IPv6Prefix)
	}
	if n := cfg.Limits.NetworkLimits; n.IPv4NetworkPrefix != 24 || n.IPv6NetworkPrefix != 64 || n.MaxConnectionsPerNetwork != 200 || cfg.Limits.MaxPlayersPerAddress != 0 {
		t.Errorf("network limits %+v and max_players_per_address %d by default", n, cfg.Limits.MaxPlayersPerAddress)
	}
	if cfg.Limits.ConnectionRate != 2.5 || cfg.Limits.ConnectionBurst != 4 || cfg.Routes[0].MaxConnections != 20 {
		t.Errorf("got %+v and route %+v", cfg.Limits, cfg.Routes[0])
	}
	cases := map[string]struct{ yaml, want string }{
		"rate":            {"limits:\n  connection_rate_per_ip: 0\n", "limits.connection_rate_per_ip: must be positive"},
		"burst":           {"limits:\n  connection_burst_per_ip: 0\n", "limits.connection_burst_per_ip: must be positive"},
		"ipv6 prefix":     {"limits:\n  ipv6_prefix: 16\n", "limits.ipv6_prefix: must be between 32 and 128"},
		"ipv6 prefix big": {"limits:\n  ipv6_prefix: 129\n", "limits.ipv6_prefix: must be between 32 and 128"},
		"route":           {"routes:\n  - hosts: [\"*\"]\n    backends: [127.0.0.1:25565]\n    max_connections: -1\n", "routes[0].max_connections"},
		"route players":   {"routes:\n  - hosts: [\"*\"]\n    backends: [127.0.0.1:25565]\n    max_players: -1\n", "routes[0].max_players"},
		"players":         {"limits:\n  max_players_per_address: -1\n", "limits.max_players_per_address"},
		"ipv4 network":    {"limits:\n  ipv4_network_prefix: 33\n", "limits.ipv4_network_prefix: must be between 8 and 32"},
		"ipv6 network":    {"limits:\n  ipv6_prefix: 56\n  ipv6_network_prefix: 64\n", "limits.ipv6_network_prefix: must be between 32 and ipv6_prefix (56)"},
		"network max":     {"limits:\n  max_connections_per_network: 0\n", "limits.max_connections_per_network: must be positive"},
		"network rate":    {"limits:\n  connection_rate_per_network: 0\n", "limits.connection_rate_per_network: must be positive"},
		"status rate":     {"limits:\n  status_rate_per_network: -1\n", "limits.status_rate_per_network: must be positive"},
		"login burst":     {"limits:\n  login_burst_per_network: 0\n", "limits.login_burst_per_network: must be positive"},
	}
	for name, tc := range cases {
		if _, err := Parse([]byte(tc.yaml), noEnv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, tc.want)
		}
	}
}
