//go:build !(boringssl && cgo)

package gossl

import "crypto/cipher"

func cfb8Accelerated() bool { return false }

func newBoringCFB8([]byte, []byte, bool) (cipher.Stream, error) { return nil, ErrCFB8NotCompiled }
