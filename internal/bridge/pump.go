package bridge

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/moonbridge/moonbridge/ws"
)

// relay runs both directions until either ends; the first end closes both sides.
func (s *session) relay(remote *ws.Conn, first []byte) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.fail(pump(s.game, remote, &s.down, direction{from: "server", to: "game", eof: ErrServerClosed}))
	}()
	s.fail(s.gameToServer(ws.NewEncoder(remote), first))
	wg.Wait()
}

// gameToServer sends first, then the game's bytes, through the coalescing encoder. The
// encoder is closed before the session is failed, so that what the game sent before it
// closed still reaches the server.
func (s *session) gameToServer(enc *ws.Encoder, first []byte) error {
	defer enc.Close()
	if _, err := enc.Write(first); err != nil {
		return &SideError{Side: "server", Err: err}
	}
	s.up.Add(int64(len(first)))
	return pump(enc, s.game, &s.up, direction{from: "game", to: "server", eof: ErrGameClosed})
}

// direction names the two sides of a pump for its close reasons.
type direction struct {
	from, to string
	eof      error // the reason when from ends cleanly
}

// pump copies src to dst with one write per read, so that what arrived together leaves
// together, until src ends or a write fails; it returns the reason. The next read waits for
// the write, so a slow far side holds this side back with one buffer in flight.
func pump(dst io.Writer, src io.Reader, count *atomic.Int64, d direction) error {
	buf := make([]byte, ws.MaxBatchSize)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return &SideError{Side: d.to, Err: werr}
			}
			count.Add(int64(n))
		}
		switch {
		case errors.Is(err, io.EOF):
			return d.eof
		case err != nil:
			return &SideError{Side: d.from, Err: err}
		}
	}
}
