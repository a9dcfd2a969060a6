package client

import (
	"bufio"
	"context"
	"errors"
	"time"
)

// establishBuffer is the read buffer of a session that only reads the login answer (about 100
// bytes; an online login's Encryption Request about 200): an upgrade loop opens thousands of
// sessions a second, each with its own.
const establishBuffer = 512

// Establish opens one session and closes it once it is established, and returns how long the
// setup took, from the dial to the login answer's last byte: it dials (for ws and wss the TLS
// and upgrade handshakes), sends the handshake and Login Start, logs in online through an
// Online dialer (the relay's RSA decryption and session server check count in the setup),
// checks the backend's login answer and closes. The client closes first, so the TIME_WAIT of
// the connection is the client's: on loopback Linux reuses those ports for new connections
// (net.ipv4.tcp_tw_reuse, 2 by default: loopback only), so long runs do not run out of them,
// and the relay sees the orderly end every real session has. A reset (SO_LINGER 0) would leave
// no TIME_WAIT, but would send the relay down its error path on every session and measure that
// instead.
func Establish(ctx context.Context, d Dialer, name string) (time.Duration, error) {
	start := time.Now()
	stream, err := d.Dial(ctx)
	if err != nil {
		return 0, &ConnectError{Err: err}
	}
	s := &Session{name: name, stream: stream, r: bufio.NewReaderSize(stream, establishBuffer)}
	stop := context.AfterFunc(ctx, func() { stream.Close() })
	defer stop()
	err = s.requestLogin(d)
	setup := time.Since(start)
	return setup, errors.Join(err, stream.Close())
}
