package modern

import (
	"errors"
	"fmt"
)

// ProtocolError is a packet that does not read as protocol 767 says it must: the peer or a
// proxy between sent bytes this package refuses.
type ProtocolError struct {
	State  string // StateLogin, StateConfiguration, StatePlay; "handshake" or "frame" before that
	Packet string // what was being read: "login start", "transfer", "compressed frame", ...
	Err    error
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("modern: %s: %s: %v", e.State, e.Packet, e.Err)
}

func (e *ProtocolError) Unwrap() error { return e.Err }

// DisconnectError is the server's Disconnect: the player was refused or kicked with Reason.
type DisconnectError struct {
	Reason string // login: the JSON text as sent; configuration and play: the NBT string
	State  string
}

func (e *DisconnectError) Error() string {
	return fmt.Sprintf("disconnected in %s: %s", e.State, e.Reason)
}

// StreamEndError is the stream ending (or failing) without a Disconnect: what a player sees as
// "connection lost".
type StreamEndError struct {
	State string
	Err   error // io.EOF for an orderly close
}

func (e *StreamEndError) Error() string {
	return fmt.Sprintf("connection lost in %s: %v", e.State, e.Err)
}

func (e *StreamEndError) Unwrap() error { return e.Err }

// EncryptionRequestError is an online-mode server's Encryption Request, which this player does
// not answer: Join stops there and returns it.
type EncryptionRequestError struct {
	ServerID           string
	PublicKey          []byte // DER (PKIX)
	VerifyToken        []byte
	ShouldAuthenticate bool
}

func (e *EncryptionRequestError) Error() string {
	return fmt.Sprintf("the server asked for encryption (online mode): %d-byte key", len(e.PublicKey))
}

// EchoError is a test:echo answer that differs from what was sent.
type EchoError struct {
	Sent, Got int // lengths
	Offset    int // first differing byte, or the shorter length
}

func (e *EchoError) Error() string {
	return fmt.Sprintf("echo of %d bytes came back as %d bytes, differing from byte %d", e.Sent, e.Got, e.Offset)
}

var (
	// ErrTransferred: a Transfer arrived (while echoing, or during a join); AwaitTransfer
	// returns it.
	ErrTransferred = errors.New("modern: the server sent a Transfer")
	// ErrEchoTimeout: no echo answer came within EchoTimeout.
	ErrEchoTimeout = errors.New("modern: no echo answer in time")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("modern: client closed")
)

// Field faults a ProtocolError wraps.
var (
	errTruncated      = errors.New("packet ends inside a field")
	errTrailing       = errors.New("bytes after the last field")
	errBadLength      = errors.New("negative or oversized length")
	errUnexpectedID   = errors.New("unexpected packet id")
	errBelowThreshold = errors.New("compressed packet below the compression threshold")
	errInflate        = errors.New("compressed packet does not inflate to its stated size")
)
