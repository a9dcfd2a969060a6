package gossl

import "github.com/moonbridge/moonbridge/internal/boring"

// BoringEnabled reports whether BoringSSL is compiled into this binary (the cgo build).
const BoringEnabled = boring.Enabled

// BoringInfo describes the BoringSSL linked into the binary.
type BoringInfo = boring.Info

// LinkedBoringSSL returns what the shim reports; the zero BoringInfo when BoringEnabled is false.
func LinkedBoringSSL() BoringInfo { return boring.LinkedInfo() }
