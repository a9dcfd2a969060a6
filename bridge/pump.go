package bridge

import (
	"errors"
	"io"
	"time"

	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/ws"
)

// relay runs both directions until either ends; the first end closes both sides. A game that
// leaves (its clean end) ends the WebSocket with the closing handshake (closeAfterGame); a
// server that closes it may have a reason for the player (farewell).
func (s *session) relay(remote *ws.Conn, first []byte) {
	s.followDown()
	downDone := make(chan struct{})
	go func() {
		defer close(downDone)
		s.down.Source, s.down.Write = pipe.ReaderSource(remote, ws.MaxBatchSize), s.toGame
		err := ended(s.down.Run(), direction{from: "server", to: "game", eof: ErrServerClosed})
		if !s.gameLeft.Load() { // else it ended with the server's close answer, or its bound
			s.farewell(remote)
			s.fail(err)
		}
	}()
	err := s.gameToServer(ws.NewEncoder(remote), first)
	if errors.Is(err, ErrGameClosed) {
		s.closeAfterGame(remote, downDone)
	}
	s.fail(err)
	<-downDone
}

// closeAnswerWait bounds how long a WebSocket whose game has left waits for the server's answer
// to its close frame.
const closeAnswerWait = 2 * time.Second

// closeAfterGame sends the close frame once the game has left and waits, at most
// closeAnswerWait, for the server's answer, which the down pump reads; what the server sends
// before it is dropped (the game is gone). Closing the socket only then lets the server close
// first with nothing unread, rather than meet a closed socket and a reset.
func (s *session) closeAfterGame(remote *ws.Conn, downDone <-chan struct{}) {
	s.gameLeft.Store(true)
	remote.SetReadDeadline(time.Now().Add(closeAnswerWait))
	remote.SendClose(ws.CloseNormal, "") // a failure: the pump's read fails too, and soon
	<-downDone
}

// toGame is the down pump's write: a batch for the game, dropped once the game has left, and
// followed once written.
func (s *session) toGame(buf []byte, n int) error {
	if s.gameLeft.Load() {
		return nil
	}
	if _, err := s.game.Write(buf[:n]); err != nil {
		return err
	}
	s.follow(buf[:n])
	return nil
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
