//go:build !(boringssl && cgo)

package gossl

// boringProvider fails: this is the pure-Go build.
func boringProvider() (Provider, error) { return nil, ErrBoringNotCompiled }

func releaseMemory() {}
