package gossl

import (
	"crypto/tls"
	"fmt"
	"io"
	"time"

	"github.com/rs/zerolog"
)

// ServerConfig is what a wss listener's TLS needs. The zero value of every field but
// Certificates is a sensible default.
type ServerConfig struct {
	// Certificates, chosen by the client's SNI against each leaf's names; the first is the
	// default. Each is a pair of PEM files (reloaded on Reload and on change) or PEM in memory.
	Certificates []CertSource
	// MinVersion is "1.2" (the default, because deployed client mods offer 1.2) or "1.3".
	MinVersion string
	// KeyLog receives every session's secrets in NSS key log format (SSLKEYLOGFILE), for
	// debugging with Wireshark only; nil is off. NewServer logs a loud warning when it is set.
	KeyLog io.Writer
	// WatchInterval is how often certificate files are read and their content hashed to see
	// whether they changed; 0 means DefaultWatchInterval, negative turns the watcher off.
	WatchInterval time.Duration
	// TicketRotation is how often a new session ticket key takes over; tickets stay valid for
	// TicketKeysKept rotations. 0 means DefaultTicketRotation.
	TicketRotation time.Duration
	// RecordLayer is how the BoringSSL provider opens and seals TLS 1.3 application records:
	// RecordLayerSSL ("boringssl-ssl", also ""), BoringSSL's SSL_read/SSL_write, or
	// RecordLayerAEAD ("aead"), the shim's own record layer over BoringSSL's AEAD once the
	// handshake is over. TLS 1.2 sessions and the crypto/tls provider ignore it.
	RecordLayer string
	// Logger receives reload results and warnings.
	Logger zerolog.Logger

	// keyUpdateAfter lowers the number of records sealed under one key before the AEAD record
	// layer sends a KeyUpdate (0: the shim's 2^24), so tests reach it.
	keyUpdateAfter uint64
}

// The record layers of ServerConfig.RecordLayer. The default is RecordLayerSSL: the AEAD layer
// did not save enough CPU on the proxy's workloads (bench/results/2026-11-30-aead-record-layer.md).
const (
	RecordLayerSSL  = "boringssl-ssl"
	RecordLayerAEAD = "aead"
)

// parseRecordLayer says whether ServerConfig.RecordLayer asks for the AEAD record layer.
func parseRecordLayer(s string) (aead bool, err error) {
	switch s {
	case "", RecordLayerSSL:
		return false, nil
	case RecordLayerAEAD:
		return true, nil
	}
	return false, &TLSError{Op: "config", Reason: fmt.Sprintf("record layer %q is not %s or %s",
		s, RecordLayerSSL, RecordLayerAEAD)}
}

// CertSource is one certificate: CertFile and KeyFile (a PEM chain, leaf first, and its key),
// or PEM when CertFile is empty.
type CertSource struct {
	CertFile string
	KeyFile  string
	PEM      PEMPair
}

// Defaults for ServerConfig.
const (
	DefaultWatchInterval  = 5 * time.Second
	DefaultTicketRotation = 12 * time.Hour
	TicketKeysKept        = 3
)

// parseMinVersion maps "1.2" (or "") and "1.3" to crypto/tls's constants.
func parseMinVersion(s string) (uint16, error) {
	switch s {
	case "", "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, &TLSError{Op: "config", Reason: fmt.Sprintf("min version %q is not 1.2 or 1.3", s)}
}

func (c ServerConfig) withDefaults() ServerConfig {
	if c.WatchInterval == 0 {
		c.WatchInterval = DefaultWatchInterval
	}
	if c.TicketRotation <= 0 {
		c.TicketRotation = DefaultTicketRotation
	}
	return c
}
