package relay

import (
	"bytes"
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
)

// ProcessMemory is the memory the process uses: its resident set where /proc/self/statm tells
// it (Linux; it counts BoringSSL's C allocations and the kernel's view, as a cgroup limit
// does), else what the Go runtime has mapped and not given back.
func ProcessMemory() (uint64, error) {
	if rss, err := residentSet("/proc/self/statm"); err == nil {
		return rss, nil
	}
	return goMapped()
}

// residentSet reads the second field of a statm file: resident pages.
func residentSet(path string) (uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	fields := bytes.Fields(data)
	if len(fields) < 2 {
		return 0, fmt.Errorf("%s: %q has no resident field", path, data)
	}
	pages, err := strconv.ParseUint(string(fields[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return pages * uint64(os.Getpagesize()), nil
}

// goMapped is the Go runtime's memory minus the heap it has released to the system.
func goMapped() (uint64, error) {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(samples)
	for _, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0, fmt.Errorf("runtime/metrics has no %s", s.Name)
		}
	}
	return samples[0].Value.Uint64() - samples[1].Value.Uint64(), nil
}
