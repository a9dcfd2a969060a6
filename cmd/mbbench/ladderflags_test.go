package main

import (
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

func parseLadder(args ...string) (ladderFlags, parsed, error) {
	fs := newFlagSet("ladder", "", "", io.Discard, io.Discard)
	var f ladderFlags
	f.register(fs.FlagSet)
	if err := fs.Parse(args); err != nil {
		return f, parsed{}, err
	}
	p, err := f.parse()
	return f, p, err
}

func TestLadderFlags(t *testing.T) {
	_, p, err := parseLadder("--serve", "bin/moonbridge", "--counts", "20,50", "--scenarios", "play,join")
	if err != nil || !slices.Equal(p.counts, []int{20, 50}) || !slices.Equal(p.scenarios, []string{"play", "join"}) {
		t.Fatalf("parsed %+v, %v", p, err)
	}
	for _, bad := range [][]string{
		{"--serve", "x", "--counts", "100,100"},
		{"--serve", "x", "--counts", "250,100"},
		{"--serve", "x", "--scenarios", "idle,walk"},
		{"--serve", "x", "--window", "1s", "--interval", "5s"},
		{"--target", "127.0.0.1:25580"}, // no --target-pid
	} {
		if _, _, err := parseLadder(bad...); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want a usage error", bad, err)
		}
	}
}

func TestServeConfigRaisesTheLimits(t *testing.T) {
	f, _, _ := parseLadder("--serve", "bin/moonbridge")
	cleanup, err := f.serveConfig(16050)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if len(f.serveArgs) != 2 || f.serveArgs[0] != "--config" {
		t.Fatalf("serve args %v", f.serveArgs)
	}
	text, err := os.ReadFile(f.serveArgs[1])
	if err != nil || !strings.Contains(string(text), "max_connections_per_ip: 32100") || !strings.Contains(string(text), "connection_burst_per_ip: 32100") {
		t.Errorf("config %q, %v", text, err)
	}
	g, _, _ := parseLadder("--serve", "bin/moonbridge", "--serve-arg=--config", "--serve-arg=mine.yml")
	if _, err := g.serveConfig(100); err != nil || len(g.serveArgs) != 2 {
		t.Errorf("the caller's --config was not kept alone: %v, %v", g.serveArgs, err)
	}
}
