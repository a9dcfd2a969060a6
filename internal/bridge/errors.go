package bridge

import "errors"

// Close reasons of a session that are not failures.
var (
	ErrGameClosed   = errors.New("the game closed the connection")
	ErrServerClosed = errors.New("the server closed the WebSocket")
	ErrShutdown     = errors.New("bridge shutting down")
	ErrLegacyPing   = errors.New("answered a pre-1.7 server-list ping")
)

// SideError is a failure on one side of a running session.
type SideError struct {
	Side string // "game" or "server": whose read, or the write to whom, failed
	Err  error
}

func (e *SideError) Error() string { return e.Side + ": " + e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }
