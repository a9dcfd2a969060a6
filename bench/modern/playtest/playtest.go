// Package playtest is a Minecraft 1.21/1.21.1 (protocol 767) backend, player and stand-in proxy
// for tests of relay and bridge: the backend logs players in and echoes their test:echo plugin
// messages, the player joins, echoes byte for byte and awaits a Transfer, and the Forwarder
// relays to a backend and can drain its players with Transfers or Disconnects. The protocol is
// bench/modern's (see its package doc for the wire format and the flow); this package binds it
// to a test: loopback listeners closed by t.Cleanup, joins bounded in time.
package playtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// Protocol is the one protocol number this package speaks: 1.21 and 1.21.1.
const Protocol int32 = modern.Protocol

// The player's and backend's types, as bench/modern has them.
type (
	Client          = modern.Client
	Login           = modern.Login
	Transfer        = modern.Transfer
	DisconnectError = modern.DisconnectError
	StreamEndError  = modern.StreamEndError
)

// BackendOptions say how the backend plays its logins.
type BackendOptions struct {
	// Compression is Set Compression's threshold; -1 sends none. The zero value compresses every
	// packet.
	Compression int32
	// Encrypt: answer Login Start with an Encryption Request, as an online-mode server does,
	// and go no further.
	Encrypt bool
}

// Backend is a fake 767 server on a loopback port (bench/modern.Serve on every connection).
type Backend struct {
	Addr string // host:port on 127.0.0.1
	opts BackendOptions

	mu     sync.Mutex
	logins []Login
}

// StartBackend starts a backend that runs until the test ends.
func StartBackend(t testing.TB, opts BackendOptions) *Backend {
	t.Helper()
	b := &Backend{opts: opts}
	cfg := modern.ServerConfig{Compression: opts.Compression, Logged: b.logged}
	if opts.Encrypt {
		cfg.EncryptionKey = publicKey(t)
	}
	ln := testutil.Serve(t, func(conn net.Conn) {
		defer conn.Close() // as a server does when its player has left
		c := modern.NewConn(conn, mc.NewFrameReader(conn, 4<<10))
		hs, err := modern.ReadHandshake(c)
		if err == nil {
			err = modern.Serve(c, hs, cfg)
		}
		if err != nil && !isHangup(err) {
			t.Logf("playtest backend: %v", err)
		}
	})
	b.Addr = ln.Addr().String()
	return b
}

// Logins are what each accepted connection's handshake and Login Start said, in order.
func (b *Backend) Logins() []Login {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Login(nil), b.logins...)
}

func (b *Backend) logged(l Login) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.logins = append(b.logins, l)
}

// Join logs in over conn (TCP, or a WebSocket stream from a test's dialer) as name with next
// state next (2, or 3 after a transfer), answering Cookie Requests from cookies (nil: none),
// up to the play state; see bench/modern.Join for its errors. It gives up after
// testutil.WaitBound.
func Join(conn net.Conn, host string, port uint16, name string, next int32, cookies map[string][]byte) (*Client, error) {
	conn.SetDeadline(time.Now().Add(testutil.WaitBound))
	c, err := modern.Join(conn, host, port, name, next, cookies)
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	return c, nil
}

// publicKey is a fresh RSA key's public half in DER, as an online-mode server sends it.
func publicKey(t testing.TB) []byte {
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// isHangup is a player leaving, how every connection ends.
func isHangup(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
