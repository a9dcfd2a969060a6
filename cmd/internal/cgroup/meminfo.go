package cgroup

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// MachineMemory reads the machine's memory, in bytes, from proc/meminfo's MemTotal in fsys
// (rooted at "/"): what memory.limit 0 takes a share of where no cgroup sets a limit.
func MachineMemory(fsys fs.FS) (uint64, error) {
	data, err := fs.ReadFile(fsys, "proc/meminfo")
	if err != nil {
		return 0, err
	}
	lines := bufio.NewScanner(bytes.NewReader(data))
	for lines.Scan() {
		rest, ok := strings.CutPrefix(lines.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kib, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/meminfo: MemTotal %q is not a number of kB", strings.TrimSpace(rest))
		}
		return kib << 10, nil
	}
	return 0, fmt.Errorf("/proc/meminfo has no MemTotal line")
}
