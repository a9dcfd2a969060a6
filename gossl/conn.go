package gossl

import (
	"context"
	"crypto/tls"
	"net"
	"time"
)

// Conn is a server-side TLS connection. It is a net.Conn, so net/http can serve the WebSocket
// upgrade on it (deadlines included); the handshake runs on the first Read or Write, or
// explicitly with HandshakeContext. Each Write is sealed whole and leaves in one socket write
// (writes over MaxBatch are split into MaxBatch pieces).
type Conn interface {
	net.Conn
	HandshakeContext(ctx context.Context) error
	State() ConnState // the zero ConnState until the handshake is done
	// CanDetach reports whether DetachBoring can move this session onto an event loop once it
	// is established (its Server's CanDetach).
	CanDetach() bool
}

// MaxBatch is the most plaintext one Write seals in one call and sends in one socket write:
// room for a 64 KiB WebSocket batch with its header, and then some.
const MaxBatch = 128 << 10

// ConnState is what logs and metrics say about a session.
type ConnState struct {
	Provider    string      // ProviderBoringSSL or ProviderGo
	Version     uint16      // tls.VersionTLS12 or tls.VersionTLS13
	CipherSuite uint16      // IANA id, as crypto/tls's constants
	Group       tls.CurveID // the key exchange, e.g. tls.X25519MLKEM768
	ALPN        string
	ServerName  string // the client's SNI, "" if none
	Resumed     bool
	// RecordLayer carries the application records: RecordLayerSSL or RecordLayerAEAD for
	// BoringSSL (TLS 1.2 is always RecordLayerSSL), RecordLayerGo for the Go provider.
	RecordLayer string
}

// VersionName is "TLS 1.2" or "TLS 1.3".
func (s ConnState) VersionName() string { return tls.VersionName(s.Version) }

// CipherSuiteName is the suite's standard name, e.g. TLS_AES_128_GCM_SHA256.
func (s ConnState) CipherSuiteName() string { return tls.CipherSuiteName(s.CipherSuite) }

// aLongTimeAgo is a deadline that has passed: setting it makes blocked I/O return at once.
var aLongTimeAgo = time.Unix(1, 0)
