// Package gossl is moonbridge's TLS layer for wss listeners: one Provider interface with a
// BoringSSL provider (cgo, build tags boringssl and cgo, through the C shim in native/) and a
// crypto/tls provider, selected at startup with auto, boringssl or go.
package gossl
