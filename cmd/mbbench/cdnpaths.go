package main

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/moonbridge/moonbridge/bench/client"
)

// cdnPath is one way a game client in the player namespace reaches the proxy of the edge one:
// straight over raw TCP, or through a bridge of its own (moonbridge client) over ws or wss. It
// gets a listener of its own on the proxy, so that a listener setting (early data) applies to
// this path alone; listener and bridge are keys laid over that listener's entry in the
// proxy's config and over its bridge's client: section.
type cdnPath struct {
	name, transport  string
	listener, bridge map[string]any
}

// defaultCDNPaths are raw TCP, the bridge over ws and over wss, without extra keys; raw first,
// the baseline of the differences.
var defaultCDNPaths = []string{"raw=tcp", "ws=ws", "wss=wss"}

// parseCDNPath reads `NAME=TRANSPORT [listener.KEY=VALUE]... [bridge.KEY=VALUE]...`: TRANSPORT
// tcp, ws or wss; each VALUE is YAML without spaces (true, 5s, [a,b]), KEY a key of a listeners: entry or of
// the client: section, e.g. `ws-ed=ws listener.early_data=true bridge.early_data=true`.
func parseCDNPath(spec string) (cdnPath, error) {
	name, rest, ok := strings.Cut(spec, "=")
	fields := strings.Fields(rest)
	if !ok || name == "" || len(fields) == 0 {
		return cdnPath{}, fmt.Errorf("path %q: want NAME=TRANSPORT [listener.KEY=VALUE]... [bridge.KEY=VALUE]...", spec)
	}
	p := cdnPath{name: name, transport: fields[0], listener: map[string]any{}, bridge: map[string]any{}}
	switch p.transport {
	case client.TransportTCP, client.TransportWS, client.TransportWSS:
	default:
		return cdnPath{}, fmt.Errorf("path %s: transport %q: want tcp, ws or wss", name, p.transport)
	}
	for _, f := range fields[1:] {
		if err := p.setKey(f); err != nil {
			return cdnPath{}, fmt.Errorf("path %s: %w", name, err)
		}
	}
	if p.transport == client.TransportTCP && len(p.bridge) > 0 {
		return cdnPath{}, fmt.Errorf("path %s: raw TCP has no bridge to take bridge.* keys", name)
	}
	return p, nil
}

// setKey takes one `listener.KEY=VALUE` or `bridge.KEY=VALUE`.
func (p *cdnPath) setKey(kv string) error {
	key, text, ok := strings.Cut(kv, "=")
	where, key, dotted := strings.Cut(key, ".")
	if !ok || !dotted || key == "" {
		return fmt.Errorf("%q: want listener.KEY=VALUE or bridge.KEY=VALUE", kv)
	}
	value, err := yamlValue(text)
	if err != nil {
		return fmt.Errorf("%q: %w", kv, err)
	}
	switch where {
	case "listener":
		p.listener[key] = value
	case "bridge":
		p.bridge[key] = value
	default:
		return fmt.Errorf("%q: want listener.KEY=VALUE or bridge.KEY=VALUE", kv)
	}
	return nil
}

// parseCDNPaths reads every spec; names must differ.
func parseCDNPaths(specs []string) ([]cdnPath, error) {
	if len(specs) == 0 {
		specs = defaultCDNPaths
	}
	paths := make([]cdnPath, 0, len(specs))
	seen := map[string]bool{}
	for _, s := range specs {
		p, err := parseCDNPath(s)
		if err != nil {
			return nil, usageError("%v", err)
		}
		if seen[p.name] {
			return nil, usageError("path %s is given twice", p.name)
		}
		seen[p.name] = true
		paths = append(paths, p)
	}
	return paths, nil
}

// yamlValue reads a setting's value as YAML: true, 5s, 64, [a, b].
func yamlValue(text string) (any, error) {
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("the value is not YAML: %w", err)
	}
	return v, nil
}
