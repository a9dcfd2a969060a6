//go:build !(boringssl && cgo)

package boring

// Enabled reports whether BoringSSL is compiled into this binary.
const Enabled = false

// LinkedInfo returns the zero Info: no BoringSSL is linked into this build.
func LinkedInfo() Info { return Info{} }
