package testutil

import (
	"bytes"
	"compress/zlib"
)

// Zlib is b compressed as a Minecraft frame's compressed body is (zlib), for tests that write
// compressed frames by hand.
func Zlib(b []byte) []byte {
	var out bytes.Buffer
	zw := zlib.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}
