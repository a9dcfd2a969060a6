package bridge

import (
	"errors"
	"io"
	"sync"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/ws"
)

// relay runs both directions until either ends; the first end closes both sides.
func (s *session) relay(remote *ws.Conn, first []byte) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.down.Source, s.down.Write = pipe.ReaderSource(remote, ws.MaxBatchSize), writeAll(s.game)
		s.fail(ended(s.down.Run(), direction{from: "server", to: "game", eof: ErrServerClosed}))
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
		return &pipe.SideError{Side: "server", Err: err}
	}
	s.up.Bytes.Add(int64(len(first)))
	s.up.Source, s.up.Write = pipe.ReaderSource(s.game, ws.MaxBatchSize), writeAll(enc)
	return ended(s.up.Run(), direction{from: "game", to: "server", eof: ErrGameClosed})
}

// writeAll writes each batch, which a ReaderSource keeps at the start of its buffer, to w.
func writeAll(w io.Writer) func(buf []byte, n int) error {
	return func(buf []byte, n int) error {
		_, err := w.Write(buf[:n])
		return err
	}
}

// direction names the two sides of a pump for its close reasons.
type direction struct {
	from, to string
	eof      error // the reason when from ends cleanly
}

// ended turns how a pump ended into the session's close reason: from's clean end, or a
// *pipe.SideError naming the side whose read, or the write to whom, failed.
func ended(err error, d direction) error {
	var we *pipe.WriteError
	switch {
	case errors.As(err, &we):
		return &pipe.SideError{Side: d.to, Err: we.Err}
	case errors.Is(err, io.EOF):
		return d.eof
	}
	return &pipe.SideError{Side: d.from, Err: err}
}
