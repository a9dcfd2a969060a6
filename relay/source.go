package relay

import (
	"net"

	"github.com/moonbridge/moonbridge/internal/bufpool"
	"github.com/moonbridge/moonbridge/internal/pipe"
)

// A pump (a pipe.Pump) reads its source in batches of up to batchSize bytes, into a pooled
// buffer with headroom in front: buf[headroom:headroom+n] is the payload. Plain sockets are read
// lean (source_linux.go): a pump waiting for data holds no buffer, so an idle direction holds
// nothing. Other sources (WebSocket and TLS, which keep state between reads) read into one
// buffer held while the pump runs.

// Two pools of headroom+batchSize buffers: lean sources borrow from batchPool for bursts, held
// sources keep theirs from heldPool for a whole session. Apart, a held buffer is touched only by
// the reads of its own direction (a player's small packets: a few pages), never by a backend's
// burst that an earlier borrower read into it, which would keep all its pages resident while
// the session idles. How much the pools keep follows the memory profile (internal/bufpool).
var batchPool, heldPool = bufpool.New(headroom + batchSize), bufpool.New(headroom + batchSize)

// batchesOut is how many buffers pumps hold now (moonbridge_relay_buffers on /metrics).
func batchesOut() int64 { return batchPool.Stats().Out + heldPool.Stats().Out }

// sourceFor reads conn lean when it is a plain socket, else through read into a held buffer.
func sourceFor(conn net.Conn, read func([]byte) (int, error)) pipe.Source {
	if conn != nil {
		if s := leanSourceFor(conn); s != nil {
			return s
		}
	}
	return &heldSource{from: read}
}

// heldSource reads into one buffer taken at the first read and kept until close.
type heldSource struct {
	from func([]byte) (int, error)
	buf  *[]byte
}

func (s *heldSource) Next() (*[]byte, int, error) {
	if s.buf == nil {
		s.buf = heldPool.Get()
	}
	n, err := s.from((*s.buf)[headroom:])
	return s.buf, n, err
}

func (s *heldSource) Close() {
	if s.buf != nil {
		heldPool.Put(s.buf)
		s.buf = nil
	}
}
