// Package boring is the cgo boundary to moonbridge's C shim over BoringSSL (native/mbtls.h).
//
// Two packages plug it in: gossl (the TLS engine: Ctx, Engine) and mc/cfb8 (Minecraft's
// AES-128/CFB8: NewCFB8, CFB8Accelerated), as Go's crypto/internal/boring plugs into crypto/aes.
//
// Like crypto/internal/boring it is a file pair with exactly opposite build tags: boring.go
// (tags boringssl and cgo, with ctx.go, engine.go, keylog.go and cfb8.go) calls the shim,
// notboring.go is the build without it, where NewCFB8 fails (it needs cgo) and
// CFB8Accelerated is false. gossl's provider is chosen by the same tags (gossl/boringssl.go and
// boringssl_off.go); mc/cfb8 asks Enabled before it calls NewCFB8, as crypto/aes does. gossl
// re-exports Enabled as BoringEnabled for buildinfo.Flavour, which `moonbridge version`,
// `selftest` and the startup fallback warning ask.
//
// The cgo build needs `make native` first: it builds BoringSSL and the shim with CMake and writes
// build/pkgconfig/moonbridge-native.pc, which cgo reads through PKG_CONFIG_PATH.
package boring

// Info describes the BoringSSL linked into the binary.
type Info struct {
	Revision    string // BoringSSL revision the shim was built against
	Source      string // where third_party/boringssl/obtain.sh got the source
	VersionText string // OpenSSL_version(OPENSSL_VERSION), "BoringSSL"
	APIVersion  int    // BORINGSSL_API_VERSION
}
