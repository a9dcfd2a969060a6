package main

import (
	"strings"
	"testing"
	"testing/fstest"

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

func TestMemoryLimitDefaultsToTheCgroupElseHalfTheMachine(t *testing.T) {
	meminfo := file("MemTotal:        8054852 kB\nMemFree:          123456 kB\n")
	cases := []struct {
		name      string
		fs        fstest.MapFS
		limit     uint64
		limitFrom string
	}{
		{"cgroup limit", fstest.MapFS{
			"proc/self/cgroup": file("0::/\n"), "sys/fs/cgroup/memory.max": file("268435456\n"), "proc/meminfo": meminfo,
		}, 256 << 20, "/sys/fs/cgroup/memory.max"},
		{"no cgroup limit", fstest.MapFS{
			"proc/self/cgroup": file("0::/\n"), "sys/fs/cgroup/memory.max": file("max\n"), "proc/meminfo": meminfo,
		}, 8054852 << 10 / 2, "50% of MemTotal in /proc/meminfo"},
		{"neither (not Linux)", fstest.MapFS{}, 0, ""},
	}
	for _, c := range cases {
		mem, err := relayMemoryFrom(config.Default().Memory, c.fs)
		if err != nil || mem.Limit != c.limit || mem.LimitFrom != c.limitFrom {
			t.Errorf("%s: limit %d from %q, %v; want %d from %q", c.name, mem.Limit, mem.LimitFrom, err, c.limit, c.limitFrom)
		}
	}
}

func file(text string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(text)} }
