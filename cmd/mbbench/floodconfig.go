package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/goccy/go-yaml"

	"github.com/moonbridge/moonbridge/access"
)

// Hosts and paths of the routes in the config mbbench flood writes.
const (
	floodOnlineHost = "online.flood"
	floodHost       = "flood.test"
	floodLockedHost = "locked.flood"
	floodWSPath     = "/mc"
)

// floodServed is what the config of a moonbridge served for a flood needs besides the extra file.
type floodServed struct {
	backend, sink, sessionServer, adminAddr, keyFile string
}

// floodBase is the config mbbench flood writes: an admin listener for /metrics; four routes
// (online.flood: auth online at the fake session server, and flood.test, the host of the other
// classes: both to the flood's sink; locked.flood on the WebSocket path: tokens required, so
// that an upgrade there with a token that does not verify is refused; everything else, the
// players: passthrough to the fake backend); a drain of 1 s. Every limit keeps its default:
// the legitimate players come from addresses of their own, a few per /24 (flood.PlayerSources).
func floodBase(s floodServed) map[string]any {
	route := func(backend string, extra map[string]any) map[string]any {
		r := map[string]any{"backends": []string{backend}, "health_check": map[string]any{"mode": "off"}}
		for k, v := range extra {
			r[k] = v
		}
		return r
	}
	return map[string]any{
		"log":   map[string]any{"level": "warn"},
		"admin": map[string]any{"listen": s.adminAddr},
		"routes": []any{
			route(s.sink, map[string]any{"name": "online", "hosts": []string{floodOnlineHost}, "auth": "online"}),
			route(s.sink, map[string]any{"name": "flood", "hosts": []string{floodHost}}),
			route(s.sink, map[string]any{"name": "locked", "hosts": []string{floodLockedHost}, "paths": []string{floodWSPath},
				"access": map[string]any{"tokens": "required"}}),
			route(s.backend, map[string]any{"name": "open", "hosts": []string{"*"}}),
		},
		"access": map[string]any{"keys": []string{s.keyFile}},
		// The flood's sessions to its sink stay open until the proxy closes them: a drain that
		// waited for them would outlast mbbench's wait for the proxy to exit.
		"shutdown": map[string]any{"drain_timeout": "1s"},
		"login":    map[string]any{"session_server": s.sessionServer},
	}
}

// mergeConfig lays extra over base: maps merge key by key, anything else in extra replaces.
func mergeConfig(base, extra map[string]any) map[string]any {
	for k, v := range extra {
		bm, ok1 := base[k].(map[string]any)
		em, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			base[k] = mergeConfig(bm, em)
			continue
		}
		base[k] = v
	}
	return base
}

// writeFloodConfig writes the base config with the extra file merged into dir, and a token key
// for the locked route; it returns the config's path.
func writeFloodConfig(dir string, s floodServed, extraFile string) (string, error) {
	key, err := access.GenerateKey(access.Ed25519, "flood")
	if err != nil {
		return "", err
	}
	s.keyFile = filepath.Join(dir, "flood.pub")
	if err := os.WriteFile(s.keyFile, access.MarshalPublicKey(key.Public()), 0o600); err != nil {
		return "", err
	}
	cfg := floodBase(s)
	if extraFile != "" {
		b, err := os.ReadFile(extraFile)
		if err != nil {
			return "", err
		}
		var extra map[string]any
		if err := yaml.Unmarshal(b, &extra); err != nil {
			return "", fmt.Errorf("--config-extra %s: %w", extraFile, err)
		}
		cfg = mergeConfig(cfg, extra)
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return "", err
	}
	return writeConfig(dir, "# written by mbbench flood\n"+string(out))
}
