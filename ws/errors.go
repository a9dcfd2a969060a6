package ws

import (
	"errors"
	"fmt"
)

// Sentinel errors.
var (
	// ErrShortHeader: the buffer ends before the frame header does.
	ErrShortHeader = errors.New("ws: frame header incomplete")
	// ErrClosed: the connection has sent its close frame or was closed.
	ErrClosed = errors.New("ws: connection closed")
	// ErrNoHeadroom: a WriteBatch buffer shorter than MaxHeaderLen.
	ErrNoHeadroom = errors.New("ws: batch buffer lacks MaxHeaderLen bytes of headroom")
	// ErrBatchTooLarge: a WriteBatch payload over MaxBatchSize.
	ErrBatchTooLarge = errors.New("ws: batch payload over MaxBatchSize")
	// ErrBusy: Detach while a Read waits in the socket or a frame is being written.
	ErrBusy = errors.New("ws: detach: a read or write is in flight")
	// ErrEarlyDataUnread: Detach while early data the server took wait for a Read.
	ErrEarlyDataUnread = errors.New("ws: detach: early data are still unread")
	// ErrNotServer: Detach of a client connection (the loop codec writes server frames).
	ErrNotServer = errors.New("ws: detach: only a server connection can move to an event loop")
	// errDetached: the connection was handed over by Detach while a close was under way.
	errDetached = errors.New("ws: connection detached")
)

// ProtocolError is a peer's violation of RFC 6455 (or of this package's
// limits). Code is the close code sent to the peer, Reason the text sent
// with it and logged.
type ProtocolError struct {
	Code   CloseCode
	Reason string
}

func protocolError(code CloseCode, reason string) *ProtocolError {
	return &ProtocolError{Code: code, Reason: reason}
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("ws: %s (close %d)", e.Reason, e.Code)
}

// CloseError is returned by Read when the peer closed the connection with
// a code other than 1000 (normal), 1001 (going away) or none; those three
// end the stream with io.EOF.
type CloseError struct {
	Code   CloseCode
	Reason string
}

func (e *CloseError) Error() string {
	return fmt.Sprintf("ws: peer closed with %d %q", e.Code, e.Reason)
}

// HandshakeError is an upgrade the server refused or answered wrongly.
type HandshakeError struct {
	StatusCode int // the HTTP status, 0 if the response was not HTTP
	Reason     string
	// Text is a refusal's plain-text body, its first line, when it is short (a proxy's reason:
	// "over the limit of 50 connections per address"); "" otherwise.
	Text string
}

func (e *HandshakeError) Error() string {
	if e.Text != "" {
		return fmt.Sprintf("ws: handshake failed (HTTP %d): %s: %s", e.StatusCode, e.Reason, e.Text)
	}
	return fmt.Sprintf("ws: handshake failed (HTTP %d): %s", e.StatusCode, e.Reason)
}
