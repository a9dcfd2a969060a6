package cfb8

import (
	"runtime"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/moonbridge/moonbridge/internal/boring"
)

// TestBoringAcceleratedFollowsTheCPU: the shim's accelerated CFB8 is on exactly in a build with
// BoringSSL on an x86-64 CPU with AES-NI and SSSE3.
func TestBoringAcceleratedFollowsTheCPU(t *testing.T) {
	want := boring.Enabled && runtime.GOARCH == "amd64" && cpu.X86.HasAES && cpu.X86.HasSSSE3
	if got := BoringAccelerated(); got != want {
		t.Fatalf("BoringAccelerated() = %v; BoringSSL compiled in %v, %s, AES-NI %v, SSSE3 %v",
			got, boring.Enabled, runtime.GOARCH, cpu.X86.HasAES, cpu.X86.HasSSSE3)
	}
}
