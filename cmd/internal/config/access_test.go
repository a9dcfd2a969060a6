package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/access"
)

func TestAccessErrorsNameKeyAndLine(t *testing.T) {
	route := "routes:\n  - hosts: ['*']\n    backends: [127.0.0.1:25565]\n    access:\n"
	cases := map[string]struct{ yaml, want string }{
		"tokens without keys": {route + "      tokens: required\n", "line 5: routes[0].access.tokens: required needs access.keys"},
		"unknown mode":        {route + "      tokens: sometimes\n", `line 5: routes[0].access.tokens: "sometimes" is not one of off, optional, required`},
		"bad allow":           {route + "      allow: [10.0.0.0/33]\n", `line 5: routes[0].access.allow[0]: "10.0.0.0/33" is not a CIDR`},
		"bad deny":            {route + "      deny: [nowhere]\n", `line 5: routes[0].access.deny[0]: "nowhere" is not a CIDR`},
		"missing key file":    {"access:\n  keys: [/nonexistent/k.pub]\n", "line 2: access.keys[0]: cannot read /nonexistent/k.pub"},
		"negative leeway":     {"access:\n  leeway: -1s\n", "line 2: access.leeway: must be 0 or a positive duration"},
		"negative cache":      {"access:\n  token_cache: -1\n", "line 2: access.token_cache: must be 0 (off) to 1048576 tokens"},
		"huge cache":          {"access:\n  token_cache: 2000000\n", "line 2: access.token_cache: must be 0 (off) to 1048576 tokens"},
		"token and file":      {"client:\n  token: abc\n  token_file: /nonexistent/t\n", "client.token_file: set client.token or client.token_file, not both"},
		"missing token file":  {"client:\n  token_file: /nonexistent/t\n", "line 2: client.token_file: cannot read /nonexistent/t: no such file or directory"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), noEnv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestAccessDefaultsAndAFullSection(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "k.pub")
	os.WriteFile(keys, []byte("a key"), 0o644)
	cfg, err := Parse([]byte("access:\n  keys: ["+keys+"]\n  audience: play.example.net\nroutes:\n  - hosts: ['*']\n    backends: [127.0.0.1:25565]\n"+
		"    access:\n      tokens: required\n      deny: [203.0.113.0/24]\n  - hosts: [b.example]\n    backends: [127.0.0.1:25566]\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Access.Leeway != time.Minute || cfg.Access.QueryToken || cfg.Access.Audience != "play.example.net" {
		t.Errorf("access %+v", cfg.Access)
	}
	if a := cfg.Routes[0].Access; a.Tokens != access.TokensRequired || len(a.Deny) != 1 || len(a.Allow) != 0 {
		t.Errorf("routes[0].access %+v", a)
	}
	if a := cfg.Routes[1].Access; a.Tokens != access.TokensOff {
		t.Errorf("a route without access has tokens %q, want off", a.Tokens)
	}
}
