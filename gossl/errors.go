package gossl

import "errors"

// TLSError is how both providers report a TLS failure: the operation (handshake, read, write,
// certificate, config) and a short reason (BoringSSL's reason string such as
// WRONG_VERSION_NUMBER, or crypto/tls's message).
type TLSError struct {
	Op     string
	Reason string
	Err    error // the underlying error, when there is one (socket errors, crypto/tls)
}

func (e *TLSError) Error() string { return "tls " + e.Op + ": " + e.Reason }

func (e *TLSError) Unwrap() error { return e.Err }

// ErrBoringNotCompiled is Select's answer to "boringssl" in a build without BoringSSL.
var ErrBoringNotCompiled = errors.New("the boringssl TLS provider is not compiled into this binary " +
	"(a pure-Go build); build with `make build` for BoringSSL, or set tls.provider to auto or go")
