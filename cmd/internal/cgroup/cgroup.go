// Package cgroup reads the memory limit of the control group the process runs in (a container,
// a systemd unit with MemoryMax=), and the machine's memory, for memory.limit: 0.
package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Limit is the smallest memory limit on the way from the process's cgroup to the root of its
// hierarchy; Bytes 0 means no limit is set anywhere.
type Limit struct {
	Bytes uint64
	File  string // where it was read, "" without a limit
}

// The hierarchies' usual mount points and limit files. cgroup v1's memory controller wins
// where both are mounted (a hybrid system), as it is the one that limits.
const (
	v1Mount = "sys/fs/cgroup/memory"
	v1File  = "memory.limit_in_bytes"
	v2Mount = "sys/fs/cgroup"
	v2File  = "memory.max"
)

// unlimitedV1 is where cgroup v1 reports no limit from: it writes the largest page-aligned
// 63-bit number (9223372036854771712 with 4 KiB pages).
const unlimitedV1 = 1 << 62

// MemoryLimit reads the limit from fsys, the file system rooted at "/" (os.DirFS("/")): the
// process's cgroup from proc/self/cgroup, then the limit files of that cgroup and of each
// parent. Inside a container with its own cgroup namespace the cgroup is "/", and the mount
// point's own file is the container's limit.
func MemoryLimit(fsys fs.FS) (Limit, error) {
	data, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return Limit{}, err
	}
	v1, v2, err := parseProcCgroup(data)
	if err != nil {
		return Limit{}, err
	}
	switch {
	case v1 != "":
		return smallest(fsys, v1Mount, v1, v1File)
	case v2 != "":
		return smallest(fsys, v2Mount, v2, v2File)
	}
	return Limit{}, nil
}

// parseProcCgroup finds the memory controller's cgroup (v1: "4:memory:/path") and the unified
// one (v2: "0::/path") in a /proc/self/cgroup file.
func parseProcCgroup(data []byte) (v1, v2 string, err error) {
	lines := bufio.NewScanner(bytes.NewReader(data))
	for lines.Scan() {
		fields := strings.SplitN(lines.Text(), ":", 3)
		if len(fields) != 3 || !strings.HasPrefix(fields[2], "/") {
			return "", "", fmt.Errorf("proc/self/cgroup: %q is not ID:CONTROLLERS:/PATH", lines.Text())
		}
		switch {
		case fields[0] == "0" && fields[1] == "":
			v2 = fields[2]
		case hasController(fields[1], "memory"):
			v1 = fields[2]
		}
	}
	return v1, v2, lines.Err()
}

func hasController(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// smallest walks from mount/group up to mount and returns the smallest limit set on the way;
// directories that do not exist (a cgroup path from outside this namespace) are skipped.
func smallest(fsys fs.FS, mount, group, file string) (Limit, error) {
	var found Limit
	for dir := path.Clean(group); ; dir = path.Dir(dir) {
		name := path.Join(mount, dir, file)
		bytes, err := readLimit(fsys, name)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Limit{}, err
		}
		if bytes > 0 && (found.Bytes == 0 || bytes < found.Bytes) {
			found = Limit{Bytes: bytes, File: "/" + name}
		}
		if dir == "/" {
			return found, nil
		}
	}
}

// readLimit reads one limit file: a number of bytes, or "max" (v2) or a huge number (v1) for
// none, which it returns as 0.
func readLimit(fsys fs.FS, name string) (uint64, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, err
	}
	text := strings.TrimSpace(string(data))
	if text == "max" {
		return 0, nil
	}
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/%s: %q is neither a number of bytes nor max", name, text)
	}
	if n >= unlimitedV1 {
		return 0, nil
	}
	return n, nil
}
