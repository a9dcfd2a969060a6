// Package boring is the cgo boundary to moonbridge's C shim over BoringSSL (native/mbtls.h).
//
// Like Go's crypto/internal/boring it is a file pair with exactly opposite build tags:
// boring.go (tags boringssl and cgo) calls the shim, notboring.go is the build without it. The
// provider is chosen by the same tags (gossl/boringssl.go and boringssl_off.go), not by Enabled.
// Enabled is read in one place: gossl re-exports it as BoringEnabled for buildinfo.Flavour, and
// `moonbridge version`, `selftest` and the startup fallback warning ask Flavour.
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
