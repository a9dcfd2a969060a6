// Package procfs reads what the benchmark measures from the kernel: a process's CPU time
// (/proc/PID/stat) and resident memory (/proc/PID/status), and the host's TCP segments sent
// (/proc/net/snmp). The parsers take the files' text so tests run on fixtures.
package procfs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of utime and stime in /proc/PID/stat. Linux exports these in USER_HZ,
// which is 100 on every architecture Go supports, whatever the kernel's own tick rate.
const userHZ = 100

// ParseError is a /proc file whose text does not have the expected shape.
type ParseError struct {
	File   string
	Reason string
}

func (e *ParseError) Error() string { return fmt.Sprintf("procfs: %s: %s", e.File, e.Reason) }

// Stat is what the benchmark reads from /proc/PID/stat.
type Stat struct {
	PPID int
	CPU  time.Duration // utime + stime
}

// ParseStat reads the parent PID and utime+stime from the text of /proc/PID/stat. The command
// name (field 2) may hold spaces and parentheses, so fields are counted after its last ')'.
func ParseStat(stat string) (Stat, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return Stat{}, &ParseError{"stat", "no command name"}
	}
	fields := strings.Fields(stat[end+1:])
	// fields[0] is field 3 (state), fields[1] field 4 (ppid); utime and stime are 14 and 15.
	if len(fields) < 13 {
		return Stat{}, &ParseError{"stat", fmt.Sprintf("%d fields after the command", len(fields))}
	}
	var v [3]int64
	for i, f := range []string{fields[1], fields[11], fields[12]} {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return Stat{}, &ParseError{"stat", err.Error()}
		}
		v[i] = n
	}
	return Stat{PPID: int(v[0]), CPU: time.Duration(v[1]+v[2]) * time.Second / userHZ}, nil
}

// ParseVmRSSKiB returns VmRSS in KiB from the text of /proc/PID/status.
func ParseVmRSSKiB(status string) (int64, error) {
	return statusValue(status, "VmRSS:", "kB")
}

// ParseVmHWMKiB returns VmHWM, the peak resident set, in KiB from the text of /proc/PID/status.
func ParseVmHWMKiB(status string) (int64, error) {
	return statusValue(status, "VmHWM:", "kB")
}

// ParseThreads returns the thread count from the text of /proc/PID/status.
func ParseThreads(status string) (int64, error) {
	return statusValue(status, "Threads:", "")
}

// statusValue reads the number on the line that starts with key, followed by unit if any.
func statusValue(status, key, unit string) (int64, error) {
	for line := range strings.Lines(status) {
		rest, ok := strings.CutPrefix(line, key)
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) < 1 || (unit != "" && (len(fields) != 2 || fields[1] != unit)) {
			return 0, &ParseError{"status", fmt.Sprintf("%s line %q", key, strings.TrimSpace(line))}
		}
		return strconv.ParseInt(fields[0], 10, 64)
	}
	return 0, &ParseError{"status", "no " + key + " line (a kernel thread or a zombie?)"}
}

// ParseOutSegs returns Tcp OutSegs from the text of /proc/net/snmp.
func ParseOutSegs(snmp string) (uint64, error) { return ParseNetCounter(snmp, "Tcp:", "OutSegs") }

// ParseListenDrops returns TcpExt ListenDrops from the text of /proc/net/netstat: connections
// the kernel dropped at a listener (its accept queue full, ListenOverflows, among them).
func ParseListenDrops(netstat string) (uint64, error) {
	return ParseNetCounter(netstat, "TcpExt:", "ListenDrops")
}

// ParseNetCounter returns the counter name of the group prefix from /proc/net/snmp or
// /proc/net/netstat, where a header line of names is followed by a line of values with the
// same prefix.
func ParseNetCounter(text, prefix, name string) (uint64, error) {
	var names []string
	for line := range strings.Lines(text) {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != prefix {
			continue
		}
		if names == nil {
			names = fields
			continue
		}
		for i, n := range names {
			if n == name && i < len(fields) {
				return strconv.ParseUint(fields[i], 10, 64)
			}
		}
		break
	}
	return 0, &ParseError{"net", "no " + prefix + " " + name}
}

// ListenDrops is the machine's TcpExt ListenDrops so far.
func ListenDrops() (uint64, error) {
	text, err := readProc("/proc/net/netstat")
	if err != nil {
		return 0, err
	}
	return ParseListenDrops(text)
}

// ErrNoProcess is a PID that is not (or no longer) running.
var ErrNoProcess = errors.New("procfs: no such process")

func readProc(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w: %s", ErrNoProcess, path)
	}
	return string(b), err
}
