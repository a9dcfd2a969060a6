package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"github.com/moonbridge/moonbridge/cmd/internal/cgroup"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/bufpool"
	"github.com/moonbridge/moonbridge/relay"
)

// machineShare is the percent of the machine's memory memory.limit 0 takes where no cgroup
// sets a limit: the guard is on out of the box. Half, because the proxy often shares its
// machine with the Minecraft servers behind it, whose JVMs take their heap up front; the OOM
// killer would pick the largest process, and a flood must not make the proxy that. A proxy with
// a machine of its own rarely needs more (1,000 idle players hold tens of MiB).
const machineShare = 50

// relayMemory turns the memory section into the relay's settings (relayMemoryFrom of "/").
func relayMemory(m config.Memory) (relay.Memory, error) { return relayMemoryFrom(m, os.DirFS("/")) }

// relayMemoryFrom: memory.limit in MiB, or for 0 the limit of the process's cgroup, else
// machineShare of the machine's memory, read from fsys (rooted at "/"); none where neither can
// be read (not Linux).
func relayMemoryFrom(m config.Memory, fsys fs.FS) (relay.Memory, error) {
	out := m.Memory
	if m.LimitMiB > 0 {
		out.Limit, out.LimitFrom = uint64(m.LimitMiB)<<20, "memory.limit"
		return out, nil
	}
	limit, err := cgroup.MemoryLimit(fsys)
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // no /proc: not Linux
		return relay.Memory{}, fmt.Errorf("memory.limit 0 reads the cgroup's limit: %w", err)
	}
	if limit.Bytes > 0 {
		out.Limit, out.LimitFrom = limit.Bytes, limit.File
		return out, nil
	}
	machine, err := cgroup.MachineMemory(fsys)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return out, nil
	case err != nil:
		return relay.Memory{}, fmt.Errorf("memory.limit 0 without a cgroup limit reads the machine's memory: %w", err)
	}
	out.Limit = machine * machineShare / 100
	out.LimitFrom = strconv.Itoa(machineShare) + "% of MemTotal in /proc/meminfo"
	return out, nil
}

// setBufferProfile gives the process's buffer pools (the relay's and the TLS layer's) the
// memory profile. They are process-wide, so serve sets it once, at start; a reload keeps it, as
// it keeps the rest of the memory section (notReloaded).
func setBufferProfile(m config.Memory) { bufpool.SetProfile(m.Profile) }
