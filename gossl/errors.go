package gossl

import (
	"errors"

	"github.com/moonbridge/moonbridge/gossl/internal/boring"
)

// TLSError is how both providers report a TLS failure: the operation (handshake, read, write,
// certificate, config) and a short reason.
type TLSError = boring.Error

// ErrBoringNotCompiled is Select's answer to "boringssl" in a build without BoringSSL.
var ErrBoringNotCompiled = errors.New("the boringssl TLS provider is not compiled into this binary " +
	"(a pure-Go build); build with `make build` for BoringSSL, or set tls.provider to auto or go")
