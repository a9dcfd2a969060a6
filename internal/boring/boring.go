//go:build boringssl && cgo

package boring

// #cgo pkg-config: moonbridge-native
// #include "mbtls.h"
import "C"

import "unsafe"

// Enabled reports whether BoringSSL is compiled into this binary.
const Enabled = true

// LinkedInfo returns what the shim says about the BoringSSL it was built with.
func LinkedInfo() Info {
	var info C.mb_info
	C.mb_get_info(&info)
	return Info{
		Revision:    C.GoString(info.revision),
		Source:      C.GoString(info.source),
		VersionText: C.GoString(info.version_text),
		APIVersion:  int(info.api_version),
	}
}

// SHA256 hashes data with the linked BoringSSL; tests use it to prove the library is linked.
func SHA256(data []byte) [32]byte {
	var out [32]byte
	var ptr *C.uint8_t
	if len(data) > 0 {
		ptr = (*C.uint8_t)(unsafe.Pointer(&data[0]))
	}
	C.mb_sha256(ptr, C.size_t(len(data)), (*C.uint8_t)(unsafe.Pointer(&out[0])))
	return out
}
