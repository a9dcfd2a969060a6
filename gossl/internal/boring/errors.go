package boring

// Error is a TLS failure: the operation (handshake, read, write, certificate, ...) and a short
// reason (BoringSSL's reason string such as WRONG_VERSION_NUMBER, or crypto/tls's message).
// gossl re-exports it as TLSError so both providers fail with the same type.
type Error struct {
	Op     string
	Reason string
	Err    error // the underlying error, when there is one (socket errors, crypto/tls)
}

func (e *Error) Error() string { return "tls " + e.Op + ": " + e.Reason }

func (e *Error) Unwrap() error { return e.Err }
