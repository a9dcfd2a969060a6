package gossl

import "errors"

// Moving a wss session to the new process of a binary upgrade: the old process exports its
// TLS 1.3 record state from the loop codec (MovableCodec) at a clean boundary, and the new one
// carries the records on from it with the AEAD record layer (Server.ResumeMoved).

// MovableCodec is a LoopCodec whose session can move to another process.
type MovableCodec interface {
	LoopCodec
	// MarshalMove is the session's record state, as bytes for ResumeMoved: the suite, each
	// direction's current traffic secret and next sequence number. A *MoveError when the
	// session is not at a clean boundary; the codec is unchanged then. The bytes are the
	// session's keys: send them only to the process the upgrade started, never log them, clear
	// them after; once they are sent the codec must not open or seal again.
	MarshalMove() ([]byte, error)
}

// MoveError says why a TLS session cannot move now (TLS 1.2, bytes buffered in the engine,
// a post-handshake message in flight, ...), or why a moved state cannot be resumed.
type MoveError struct{ Reason string }

func (e *MoveError) Error() string { return "gossl: TLS session cannot move: " + e.Reason }

// ErrMoveNeedsBoring: ResumeMoved on a server of the crypto/tls provider, which cannot take a
// session's keys.
var ErrMoveNeedsBoring = errors.New("gossl: a moved TLS session needs the BoringSSL provider")

// ResumeMoved makes the loop codec of a session another process exported (MarshalMove), on the
// AEAD record layer with this server's settings. An error when this server cannot take it.
func (s *Server) ResumeMoved(state []byte) (LoopCodec, error) { return s.backend.resume(state) }
