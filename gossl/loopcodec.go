package gossl

import (
	"errors"

	"github.com/moonbridge/moonbridge/loop"
)

// LoopCodec is an established TLS session that left its goroutine for an event loop
// (loop): Open opens every complete record of a read in place with one cgo call, Seal
// seals a batch into as many records as it needs with one cgo call, CloseWrite is close_notify.
// It is a Grower: a record whose start came with an earlier read opens whole, up to one
// record's plaintext more than the read brought.
type LoopCodec interface {
	loop.Codec
	loop.Grower
	// Free releases the TLS session. Call it once the session has ended (in the loop's
	// OnClose); the codec is not used after. A codec never freed is freed when collected.
	Free()
}

var (
	// ErrDetachNeedsBoring: DetachBoring in a build without BoringSSL (CGO_ENABLED=0, or
	// without the boringssl tag). Such sessions stay on goroutines.
	ErrDetachNeedsBoring = errors.New("gossl: moving a TLS session onto an event loop needs the " +
		"boringssl build; it stays on goroutines")
	// ErrNotBoring: DetachBoring was given a connection of the crypto/tls provider (or none of
	// gossl's). crypto/tls sessions stay on goroutines.
	ErrNotBoring = errors.New("gossl: not a BoringSSL connection; crypto/tls sessions stay on goroutines")
	// ErrConnBusy: DetachBoring while a Read, Write, handshake or Close runs on the connection.
	ErrConnBusy = errors.New("gossl: the connection is in use; detach it between reads and writes")
	// ErrDetached is what Read and Write return on a connection that was detached.
	ErrDetached = errors.New("gossl: the connection was detached onto an event loop")
	// ErrOpenOverflow: Open was given less room behind its ciphertext than Growth asks for.
	ErrOpenOverflow = errors.New("gossl: opened records do not fit the buffer (less room than Growth)")
	// ErrSealOverflow: Seal's out cannot hold the sealed records.
	ErrSealOverflow = errors.New("gossl: sealed records do not fit the out buffer")
)
