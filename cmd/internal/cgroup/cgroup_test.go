package cgroup

import (
	"testing"
	"testing/fstest"
)

func file(text string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(text)} }

func TestMemoryLimit(t *testing.T) {
	cases := []struct {
		name string
		fs   fstest.MapFS
		want Limit
	}{
		{"v2 container (own namespace)", fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("536870912\n"),
		}, Limit{Bytes: 512 << 20, File: "/sys/fs/cgroup/memory.max"}},
		{"v2 max", fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("max\n"),
		}, Limit{}},
		{"v2 systemd unit under a smaller slice", fstest.MapFS{
			"proc/self/cgroup": file("0::/system.slice/moonbridge.service\n"),
			"sys/fs/cgroup/system.slice/moonbridge.service/memory.max": file("1073741824\n"),
			"sys/fs/cgroup/system.slice/memory.max":                    file("805306368\n"),
		}, Limit{Bytes: 768 << 20, File: "/sys/fs/cgroup/system.slice/memory.max"}},
		{"v2 no file anywhere (root cgroup)", fstest.MapFS{
			"proc/self/cgroup": file("0::/user.slice\n"),
		}, Limit{}},
		{"v1 container, path from outside the namespace", fstest.MapFS{
			"proc/self/cgroup":                           file("12:pids:/docker/abc\n4:memory:/docker/abc\n0::/\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("268435456\n"),
		}, Limit{Bytes: 256 << 20, File: "/sys/fs/cgroup/memory/memory.limit_in_bytes"}},
		{"v1 unlimited", fstest.MapFS{
			"proc/self/cgroup": file("9:name=systemd:/\n4:memory:/process_api/x\n0::/\n"),
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": file("9223372036854771712\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes":               file("9223372036854771712\n"),
		}, Limit{}},
		{"v1 controllers listed together", fstest.MapFS{
			"proc/self/cgroup": file("3:cpu,memory:/job\n"),
			"sys/fs/cgroup/memory/job/memory.limit_in_bytes": file("104857600"),
		}, Limit{Bytes: 100 << 20, File: "/sys/fs/cgroup/memory/job/memory.limit_in_bytes"}},
	}
	for _, tc := range cases {
		got, err := MemoryLimit(tc.fs)
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestMemoryLimitErrors(t *testing.T) {
	cases := map[string]fstest.MapFS{
		"no proc file":  {},
		"bad proc line": {"proc/self/cgroup": file("garbage\n")},
		"bad limit": {
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("lots\n"),
		},
	}
	for name, fsys := range cases {
		if got, err := MemoryLimit(fsys); err == nil {
			t.Errorf("%s: %+v, want an error", name, got)
		}
	}
}

func TestMachineMemory(t *testing.T) {
	got, err := MachineMemory(fstest.MapFS{"proc/meminfo": file("MemTotal:        2009088 kB\nMemFree: 1 kB\n")})
	if err != nil || got != 2009088<<10 {
		t.Errorf("MemTotal 2009088 kB: %d, %v", got, err)
	}
	if _, err := MachineMemory(fstest.MapFS{"proc/meminfo": file("MemTotal: lots\n")}); err == nil {
		t.Error("MemTotal lots: no error")
	}
	if _, err := MachineMemory(fstest.MapFS{"proc/meminfo": file("MemFree: 1 kB\n")}); err == nil {
		t.Error("no MemTotal line: no error")
	}
}
