package gossl

import "github.com/moonbridge/moonbridge/internal/enum"

// RecordLayer names what opens and seals a session's TLS 1.3 application records
// (tls.record_layer). It is parsed once, by ParseRecordLayer or UnmarshalText, and a Server
// keeps the parsed value.
type RecordLayer string

const (
	// RecordLayerSSL is BoringSSL's SSL_read and SSL_write.
	RecordLayerSSL RecordLayer = "boringssl-ssl"
	// RecordLayerAEAD is the shim's own record layer over BoringSSL's AEAD once the handshake is
	// over (native/src/mb_rec.c).
	RecordLayerAEAD RecordLayer = "aead"
	// RecordLayerGo is what carries every record of the crypto/tls provider; it is reported
	// (Server.RecordLayer, ConnState), never configured.
	RecordLayerGo RecordLayer = "crypto/tls"
)

// DefaultRecordLayer is tls.record_layer's default, set by
// bench/results/2026-11-30-aead-record-layer.md: aead did not pay enough on the proxy's
// workloads to become it.
const DefaultRecordLayer = RecordLayerSSL

// ParseRecordLayer reads a configured record layer: RecordLayerSSL, RecordLayerAEAD, or ""
// for DefaultRecordLayer.
func ParseRecordLayer(s string) (RecordLayer, error) {
	if s == "" {
		return DefaultRecordLayer, nil
	}
	l, err := enum.Parse([]byte(s), RecordLayerSSL, RecordLayerAEAD)
	if err != nil {
		return "", &TLSError{Op: "config", Reason: "record layer " + err.Error()}
	}
	return l, nil
}

// UnmarshalText is ParseRecordLayer for configuration decoders; l is unchanged on an error.
func (l *RecordLayer) UnmarshalText(text []byte) error {
	parsed, err := ParseRecordLayer(string(text))
	if err == nil {
		*l = parsed
	}
	return err
}

// String is the layer's configuration name.
func (l RecordLayer) String() string { return string(l) }
