package ws

import (
	"net"

	"github.com/rs/zerolog"
)

// peerLog is a connection's logger and its peer's address, joined only when a line is written
// (bad input, a dead peer: rare). A logger with the address in its context would hold a
// 500-byte buffer for the connection's whole life, a tenth of what an idle player costs on the
// event loops.
type peerLog struct {
	base   zerolog.Logger
	remote net.Addr // nil: none known (a LoopState made without a Conn)
}

// logger is base with the peer's address.
func (l peerLog) logger() zerolog.Logger {
	if l.remote == nil {
		return l.base
	}
	return l.base.With().Stringer("remote", l.remote).Logger()
}
