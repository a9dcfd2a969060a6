package relay

import (
	"errors"

	"github.com/moonbridge/moonbridge/mc"
)

// Reasons a PROXY header is refused, carried by an *mc.ProtocolError; test them with errors.Is.
var (
	ErrNotProxyHeader = errors.New("not a PROXY protocol header")
	ErrProxyCommand   = errors.New("unsupported PROXY version or command")
	ErrProxyFamily    = errors.New("unsupported PROXY address family")
	ErrProxyAddress   = errors.New("invalid PROXY address")
	ErrProxyChecksum  = errors.New("PROXY header CRC32c mismatch")
)

func protocolError(layer string, offset int, reason error) *mc.ProtocolError {
	return &mc.ProtocolError{Layer: layer, Offset: offset, Err: reason}
}
