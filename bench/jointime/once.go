package jointime

import (
	"context"
	"fmt"
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
// writes them (two packets, each flushed), then the server's answer up to Login Success. It
// closes the connection after Login Success and returns the times; the server's configuration
// is not read. ctx bounds the whole join.
func Once(ctx context.Context, dial Dial, name string) (Timing, error) {
	start := time.Now()
	c, err := dial(ctx)
	if err != nil {
		return Timing{}, fmt.Errorf("jointime: dial: %w", err)
	}
	defer c.Close()
	t := Timing{Connect: time.Since(start)}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if err := modern.LogIn(c, handshakeHost, handshakePort, name); err != nil {
		return t, fmt.Errorf("jointime: %w", err)
	}
	t.LoginSuccess = time.Since(start)
	return t, nil
}
