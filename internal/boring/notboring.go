//go:build !(boringssl && cgo)

package boring

import (
	"crypto/cipher"
	"errors"
)

// Enabled reports whether BoringSSL is compiled into this binary.
const Enabled = false

// LinkedInfo returns the zero Info: no BoringSSL is linked into this build.
func LinkedInfo() Info { return Info{} }

// errNotCompiled is NewCFB8's answer in this build.
var errNotCompiled = errors.New("BoringSSL is not compiled into this binary: its CFB8 needs cgo " +
	"and the boringssl build tag (`make build`)")

// CFB8Accelerated is false: there is no shim in this build.
func CFB8Accelerated() bool { return false }

// NewCFB8 fails: BoringSSL's CFB8 needs cgo and the boringssl build tag.
func NewCFB8([]byte, []byte, bool) (cipher.Stream, error) { return nil, errNotCompiled }
