package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/bench/traffic"
)

// meta is the environment and settings of a run, printed first so that raw output explains
// itself.
type meta struct {
	Time        string   `json:"time"`
	Kernel      string   `json:"kernel"`
	CPUs        int      `json:"cpus"`
	Go          string   `json:"go"`
	Args        []string `json:"args"`
	Profile     string   `json:"profile"`
	Shape       string   `json:"shape,omitempty"`
	Transport   string   `json:"transport"`
	Endpoint    string   `json:"endpoint"`
	TargetPID   int      `json:"target_pid"`
	Backend     string   `json:"backend"`
	TLSProvider string   `json:"tls_provider,omitempty"`
}

func newMeta(f *targetFlags, profile, shape, endpoint string, pid int, backendAddr string) meta {
	return meta{
		Time: time.Now().Format(time.RFC3339), Kernel: kernelRelease(), CPUs: runtime.NumCPU(),
		Go: runtime.Version(), Args: os.Args[1:], Profile: profile, Shape: shape, Transport: f.transport,
		Endpoint: endpoint, TargetPID: pid, Backend: backendAddr, TLSProvider: f.tlsProvider,
	}
}

// profileShape describes the modded profile's mean tick answer and login burst.
func profileShape(p traffic.Profile) string {
	mp, ok := p.(*traffic.ModdedProfile)
	if !ok {
		return ""
	}
	packets, bytes := mp.Shape()
	return fmt.Sprintf("%.2f packets, %.0f bytes per tick answer; login burst %d bytes", packets, bytes, len(p.LoginBurst().Bytes))
}

func (m meta) write(w io.Writer) {
	fmt.Fprintf(w, "mbbench %s\n", strings.Join(m.Args, " "))
	fmt.Fprintf(w, "# %s, Linux %s, %d CPUs, %s\n", m.Time, m.Kernel, m.CPUs, m.Go)
	profile := m.Profile
	if m.Shape != "" {
		profile += " (" + m.Shape + ")"
	}
	fmt.Fprintf(w, "# profile %s; %s to %s (pid %d); backend %s\n", profile, m.Transport, m.Endpoint, m.TargetPID, m.Backend)
}

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
