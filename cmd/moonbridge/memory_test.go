package main

import (
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/bufpool"
)

func TestMemoryProfileFlagAndLimit(t *testing.T) {
	f := serveFlags{memProfile: "low"}
	cfg, err := f.effectiveConfig()
	if err != nil || cfg.Memory.Profile != bufpool.Low {
		t.Fatalf("--memory-profile low: %q, %v", cfg.Memory.Profile, err)
	}
	if cfg := config.Default(); cfg.Memory.Profile != bufpool.Throughput {
		t.Errorf("the default profile is %q, want throughput (bench/results/2026-11-30-memory-profiles.md)", cfg.Memory.Profile)
	}
	bad := serveFlags{memProfile: "fast"}
	if _, err := bad.effectiveConfig(); err == nil || !strings.Contains(err.Error(), "--memory-profile") {
		t.Errorf("--memory-profile fast: %v, want an error naming --memory-profile", err)
	}
	cfg.Memory.LimitMiB = 512
	mem, err := relayMemory(cfg.Memory)
	if err != nil || mem.Profile != bufpool.Low || mem.Limit != 512<<20 || mem.LimitFrom != "memory.limit" ||
		mem.FullMessage != cfg.Memory.FullMessage {
		t.Errorf("memory.limit 512: %+v, %v", mem, err)
	}
}
