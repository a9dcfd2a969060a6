package gossl

import (
	"runtime"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestCFB8AcceleratedFollowsTheCPU: the shim's accelerated CFB8 is on exactly in a build with
// BoringSSL on an x86-64 CPU with AES-NI and SSSE3.
func TestCFB8AcceleratedFollowsTheCPU(t *testing.T) {
	want := BoringEnabled && runtime.GOARCH == "amd64" && cpu.X86.HasAES && cpu.X86.HasSSSE3
	if got := CFB8Accelerated(); got != want {
		t.Fatalf("CFB8Accelerated() = %v; BoringSSL compiled in %v, %s, AES-NI %v, SSSE3 %v",
			got, BoringEnabled, runtime.GOARCH, cpu.X86.HasAES, cpu.X86.HasSSSE3)
	}
}
