package bridge

import "errors"

// Close reasons of a session that are not failures.
var (
	ErrGameClosed   = errors.New("the game closed the connection")
	ErrServerClosed = errors.New("the server closed the WebSocket")
	ErrShutdown     = errors.New("bridge shutting down")
	ErrLegacyPing   = errors.New("answered a pre-1.7 server-list ping")
)
