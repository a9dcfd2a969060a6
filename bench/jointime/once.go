package jointime

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern"
)

// Dial opens the game client's TCP connection to where a path starts.
type Dial func(ctx context.Context) (net.Conn, error)

// Timing is one join, each time from just before the dial.
type Timing struct {
	Connect      time.Duration `json:"connect_ns"`       // the dial returned
	LoginSuccess time.Duration `json:"login_success_ns"` // Login Success was read
}

// What the join's handshake names; the proxies under test route every host to the backend.
const (
	handshakeHost = "localhost"
	handshakePort = 25565
)

// Once joins as name through dial: the handshake and Login Start, written as a vanilla client
// writes them (two packets, each flushed; with oneWrite, both in one write), then the server's
// answer up to Login Success. It closes the connection after Login Success and returns the
// times; the server's configuration is not read. ctx bounds the whole join.
func Once(ctx context.Context, dial Dial, name string, oneWrite bool) (Timing, error) {
	start := time.Now()
	c, err := dial(ctx)
	if err != nil {
		return Timing{}, fmt.Errorf("jointime: dial: %w", err)
	}
	defer c.Close()
	t := Timing{Connect: time.Since(start)}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	var rwc io.ReadWriteCloser = c
	if oneWrite {
		rwc = &writeBeforeRead{Conn: c}
	}
	if err := modern.LogIn(rwc, handshakeHost, handshakePort, name); err != nil {
		return t, fmt.Errorf("jointime: %w", err)
	}
	t.LoginSuccess = time.Since(start)
	return t, nil
}

// writeBeforeRead holds what is written until the first Read, then sends it in one write: a
// client that sends its whole login request at once.
type writeBeforeRead struct {
	net.Conn
	held []byte
}

func (w *writeBeforeRead) Write(p []byte) (int, error) {
	w.held = append(w.held, p...)
	return len(p), nil
}

func (w *writeBeforeRead) Read(p []byte) (int, error) {
	if len(w.held) > 0 {
		held := w.held
		w.held = nil
		if _, err := w.Conn.Write(held); err != nil {
			return 0, err
		}
	}
	return w.Conn.Read(p)
}
