package clientaddr

import (
	"errors"

	"github.com/moonbridge/moonbridge/mc"
)

// Reasons a PROXY header is refused, carried by an *mc.ProtocolError; test them with errors.Is.
var (
	ErrNotHeader = errors.New("not a PROXY protocol header")
	ErrCommand   = errors.New("unsupported PROXY version or command")
	ErrFamily    = errors.New("unsupported PROXY address family")
	ErrAddress   = errors.New("invalid PROXY address")
	ErrChecksum  = errors.New("PROXY header CRC32c mismatch")
)

func protocolError(layer string, offset int, reason error) *mc.ProtocolError {
	return &mc.ProtocolError{Layer: layer, Offset: offset, Err: reason}
}
