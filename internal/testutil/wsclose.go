package testutil

import (
	"errors"
	"time"

	"github.com/gorilla/websocket"
)

// ReadUntilClose reads conn's messages, within d, until its read fails: the peer's close frame
// (a *websocket.CloseError), or nil and the error that ended the reading otherwise.
func ReadUntilClose(conn *websocket.Conn, d time.Duration) (*websocket.CloseError, error) {
	conn.SetReadDeadline(time.Now().Add(d))
	for {
		_, _, err := conn.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce, nil
		}
		return nil, err
	}
}
