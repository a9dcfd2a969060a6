//go:build boringssl && cgo

package gossl

import (
	"crypto/cipher"

	"github.com/moonbridge/moonbridge/gossl/internal/boring"
)

func cfb8Accelerated() bool { return boring.CFB8Accelerated() }

func newBoringCFB8(key, iv []byte, decrypt bool) (cipher.Stream, error) {
	s, err := boring.NewCFB8(key, iv, decrypt)
	if err != nil {
		return nil, &CFB8Error{Reason: err.Error()}
	}
	return s, nil
}
