package main

import (
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/bufpool"
)

func TestMemoryProfileFlagAndLimit(t *testing.T) {
	f := serveFlags{memProfile: "throughput"}
	cfg, err := f.effectiveConfig()
	if err != nil || cfg.Memory.Profile != "throughput" {
		t.Fatalf("--memory-profile throughput: %q, %v", cfg.Memory.Profile, err)
	}
	if cfg := config.Default(); cfg.Memory.Profile != "low" {
		t.Errorf("the default profile is %q, want low", cfg.Memory.Profile)
	}
	bad := serveFlags{memProfile: "fast"}
	if _, err := bad.effectiveConfig(); err == nil || !strings.Contains(err.Error(), "memory.profile") {
		t.Errorf("--memory-profile fast: %v, want an error naming memory.profile", err)
	}
	cfg.Memory.Limit = 512
	mem, err := relayMemory(cfg.Memory)
	if err != nil || mem.Profile != bufpool.Throughput || mem.Limit != 512<<20 || mem.LimitFrom != "memory.limit" ||
		mem.FullMessage != cfg.Memory.FullMessage {
		t.Errorf("memory.limit 512: %+v, %v", mem, err)
	}
}
