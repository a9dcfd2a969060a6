package procfs

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// TreeCPU is the CPU time of pid and of every live descendant (processCPU: the scheduler's
// nanoseconds). Some relays fork a process per connection (websockify does); the children live
// for the whole measured phase, so summing the tree at both ends of the phase counts their
// work, which the parent's own time would not.
func TreeCPU(pid int) (time.Duration, error) {
	root, err := processCPU(pid)
	if err != nil {
		return 0, err
	}
	stats, err := allStats()
	if err != nil {
		return 0, err
	}
	return root + descendantsCPU(pid, stats, processCPU), nil
}

// descendantsCPU sums cpu of every process below pid in stats (which gives the tree); a process
// that exits meanwhile counts its stat's CPU.
func descendantsCPU(pid int, stats map[int]Stat, cpu func(int) (time.Duration, error)) time.Duration {
	children := map[int][]int{}
	for p, s := range stats {
		children[s.PPID] = append(children[s.PPID], p)
	}
	var total time.Duration
	stack := append([]int(nil), children[pid]...)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t, err := cpu(p)
		if err != nil {
			t = stats[p].CPU
		}
		total += t
		stack = append(stack, children[p]...)
	}
	return total
}

// allStats reads the stat of every process; processes that exit meanwhile are skipped.
func allStats() (map[int]Stat, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	stats := make(map[int]Stat, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := readStat(pid); err == nil {
			stats[pid] = s
		}
	}
	return stats, nil
}

func readStat(pid int) (Stat, error) {
	text, err := readProc(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Stat{}, err
	}
	return ParseStat(text)
}
