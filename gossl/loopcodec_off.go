//go:build !(boringssl && cgo)

package gossl

import "net"

// DetachBoring fails in this build: only BoringSSL's engine works on lent buffers, and this
// build has none (see ErrDetachNeedsBoring).
func DetachBoring(c net.Conn) (raw net.Conn, plaintext []byte, codec LoopCodec, err error) {
	return nil, nil, nil, ErrDetachNeedsBoring
}
