package gossl

// ReleaseMemory hands back to the system what the TLS providers freed and their allocator kept:
// BoringSSL's C heap in the cgo build (boring.TrimMalloc); nothing in the pure-Go build, whose
// memory Go's own runtime/debug.FreeOSMemory gives back.
func ReleaseMemory() { releaseMemory() }
