package gossl

import (
	"crypto/tls"
	"net"
	"sync/atomic"
)

// goCipherSuites are the TLS 1.2 suites both providers offer (the shim's kCipherList): ECDHE
// with AES-GCM or ChaCha20-Poly1305, ECDSA and RSA. TLS 1.3 suites are not configurable.
var goCipherSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// keyExchanges are the groups both providers offer (the shim's kGroups): the post-quantum
// hybrid, then the classical ones BoringSSL also has. crypto/tls ignores the order here and
// uses its own, which is the shim's: a post-quantum group whenever the client offers one, else
// the classical group the client sent a key share for.
var keyExchanges = []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256, tls.CurveP384}

// alpnProtocols is the only protocol a wss listener speaks.
var alpnProtocols = []string{"http/1.1"}

// goBackend serves with crypto/tls: one shared tls.Config whose GetCertificate reads the
// current certificate set, so a reload needs no new Config.
type goBackend struct {
	config *tls.Config
	certs  atomic.Pointer[certSet]
}

func newGoBackend(minVersion uint16, cfg ServerConfig) backend {
	b := &goBackend{}
	b.config = &tls.Config{
		MinVersion:   minVersion,
		CipherSuites: goCipherSuites,
		// crypto/tls ranks suites and groups itself (Go 1.26 ignores PreferServerCipherSuites and
		// the order of CurvePreferences); the shim's lists and SSL_OP_CIPHER_SERVER_PREFERENCE
		// copy that ranking.
		CurvePreferences: keyExchanges,
		NextProtos:       alpnProtocols,
		KeyLogWriter:     cfg.KeyLog,
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			return b.certs.Load().pick(hello.ServerName), nil
		},
		// Records are coalesced into one socket write anyway, so small first records (a
		// latency aid for browsers) would only add overhead.
		DynamicRecordSizingDisabled: true,
	}
	return b
}

func (b *goBackend) install(certs *certSet, keys []ticketKey) error {
	goKeys := make([][32]byte, len(keys))
	for i := range keys {
		copy(goKeys[i][:], keys[i][:32])
	}
	b.config.SetSessionTicketKeys(goKeys)
	b.certs.Store(certs)
	return nil
}

func (b *goBackend) recordLayer() RecordLayer { return RecordLayerGo }

// detachable is false: a tls.Conn needs a goroutine to read it.
func (b *goBackend) detachable() bool { return false }

// resume fails: crypto/tls does not take a session's keys from outside.
func (b *goBackend) resume([]byte) (LoopCodec, error) { return nil, ErrMoveNeedsBoring }

func (b *goBackend) wrap(raw net.Conn) Conn {
	out := &coalescer{Conn: raw}
	gate := &readGate{Conn: out}
	return &goConn{Conn: tls.Server(gate, b.config), out: out, gate: gate}
}
