package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/moonbridge/moonbridge/cmd/internal/cgroup"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/bufpool"
	"github.com/moonbridge/moonbridge/relay"
)

// relayMemory turns the memory section into the relay's settings: memory.limit in MiB, or for
// 0 the limit of the process's cgroup (none when it has none).
func relayMemory(m config.Memory) (relay.Memory, error) {
	out := m.Memory
	if m.LimitMiB > 0 {
		out.Limit, out.LimitFrom = uint64(m.LimitMiB)<<20, "memory.limit"
		return out, nil
	}
	limit, err := cgroup.MemoryLimit(os.DirFS("/"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // no /proc: not Linux
		return relay.Memory{}, fmt.Errorf("memory.limit 0 reads the cgroup's limit: %w", err)
	}
	out.Limit, out.LimitFrom = limit.Bytes, limit.File
	return out, nil
}

// setBufferProfile gives the process's buffer pools (the relay's and the TLS layer's) the
// memory profile. They are process-wide, so serve sets it once, at start; a reload keeps it, as
// it keeps the rest of the memory section (notReloaded).
func setBufferProfile(m config.Memory) { bufpool.SetProfile(m.Profile) }
