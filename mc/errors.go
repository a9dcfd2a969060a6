package mc

import (
	"errors"
	"fmt"
)

// ErrNeedMore means the input is a valid beginning that ends too early:
// read more bytes and parse again from the start. It is never wrapped in a
// *ProtocolError, since nothing is wrong yet.
var ErrNeedMore = errors.New("mc: need more bytes")

// Reasons a *ProtocolError carries; test them with errors.Is.
var (
	ErrVarIntTooLong      = errors.New("VarInt longer than 5 bytes or wider than 32 bits")
	ErrVarIntNonCanonical = errors.New("VarInt not in its shortest encoding")
	ErrTooLarge           = errors.New("larger than the configured limit")
	ErrTruncated          = errors.New("field runs past the end of its frame")
	ErrTrailingBytes      = errors.New("bytes left over at the end of the frame")
	ErrPacketID           = errors.New("unexpected packet id")
	ErrHostTooLong        = errors.New("server address longer than 255 characters")
	ErrNameTooLong        = errors.New("player name longer than 16 characters")
	ErrBadEncoding        = errors.New("string is not validly encoded")
	ErrNextState          = errors.New("next state is not 1, 2 or 3")
	ErrMalformed          = errors.New("malformed")
)

// ProtocolError reports input that breaks a protocol. Retrying with more
// bytes cannot fix it; the connection should be closed with Error() as
// reason. Parsers of what comes before the Minecraft bytes (the relay's
// PROXY header) report their faults with it too, so that one type and one
// ReadParsed serve every parser of a connection's first bytes.
type ProtocolError struct {
	Layer  string // what was being parsed: "varint", "handshake", "proxy v2", ...
	Offset int    // byte offset into the parsed input where the fault was found
	Err    error  // a sentinel reason, such as ErrMalformed
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("%s: at byte %d: %v", e.Layer, e.Offset, e.Err)
}

func (e *ProtocolError) Unwrap() error { return e.Err }

func protocolError(layer string, offset int, reason error) *ProtocolError {
	return &ProtocolError{Layer: layer, Offset: offset, Err: reason}
}

// HelloError is a connection whose first bytes were not a Minecraft hello
// (a handshake or a legacy ping): what ReadHello failed with, wrapped by the
// server and the client bridge as the session's close reason.
type HelloError struct{ Err error }

func (e *HelloError) Error() string { return "bad handshake: " + e.Err.Error() }
func (e *HelloError) Unwrap() error { return e.Err }
