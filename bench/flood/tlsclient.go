package flood

import (
	"crypto/tls"
	"fmt"
	"slices"
)

// TLS client modes of the wss flood: what each connection's handshake costs the generator and
// the proxy (the proxy's certificate is moonbridge's self-signed ECDSA P-256 one).
const (
	// TLSDefault is crypto/tls's client as it comes: the hybrid X25519MLKEM768 key share, a full
	// handshake every connection. The proxy pays an ML-KEM encapsulation, an X25519 exchange
	// and an ECDSA signature; the client pays ML-KEM and X25519 key generation, decapsulation
	// and the signature's verification.
	TLSDefault = "default"
	// TLSX25519 offers X25519 alone, a full handshake every connection: the proxy pays the
	// X25519 exchange and the ECDSA signature (no ML-KEM), as against a client that picks the
	// cheapest group it may.
	TLSX25519 = "x25519"
	// TLSResume is TLSX25519 with one session cache for the whole flood: a connection resumes
	// with the last ticket the proxy issued (psk_dhe_ke, the only resumption crypto/tls offers),
	// so the proxy pays a ticket's decryption and the X25519 exchange, no signature; the first
	// connections, and any the proxy will not resume, are full handshakes.
	TLSResume = "resume"
)

// TLSClients are the TLS client modes.
var TLSClients = []string{TLSDefault, TLSX25519, TLSResume}

// tlsClientConfig is the config every wss connection of a flood shares.
func tlsClientConfig(mode, serverName string) (*tls.Config, error) {
	c := &tls.Config{ServerName: serverName, InsecureSkipVerify: true}
	switch mode {
	case TLSDefault, "":
	case TLSX25519:
		c.CurvePreferences = []tls.CurveID{tls.X25519}
	case TLSResume:
		c.CurvePreferences = []tls.CurveID{tls.X25519}
		c.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	default:
		return nil, fmt.Errorf("flood: TLS client %q: want one of %v", mode, TLSClients)
	}
	return c, nil
}

// CheckTLSClient refuses an unknown mode.
func CheckTLSClient(mode string) error {
	if mode != "" && !slices.Contains(TLSClients, mode) {
		return fmt.Errorf("flood: TLS client %q: want one of %v", mode, TLSClients)
	}
	return nil
}
