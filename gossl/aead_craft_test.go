//go:build boringssl && cgo

package gossl

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

// clientSealer seals TLS 1.3 records as the client would, from its traffic secret (read from
// the key log), so a test can send what crypto/tls never sends: KeyUpdates, padding, alerts,
// stray handshake messages, oversized records. It does TLS_AES_128_GCM_SHA256, the suite the
// server prefers.
type clientSealer struct {
	secret []byte
	aead   cipher.AEAD
	iv     []byte
	seq    uint64
}

func expandLabel(t testing.TB, secret []byte, label string, n int) []byte {
	info := []byte{byte(n >> 8), byte(n), byte(6 + len(label))}
	info = append(append(append(info, "tls13 "...), label...), 0)
	out, err := hkdf.Expand(sha256.New, secret, string(info), n)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func newClientSealer(t testing.TB, secret []byte) *clientSealer {
	s := &clientSealer{secret: secret}
	block, err := aes.NewCipher(expandLabel(t, secret, "key", 16))
	if err != nil {
		t.Fatal(err)
	}
	if s.aead, err = cipher.NewGCM(block); err != nil {
		t.Fatal(err)
	}
	s.iv = expandLabel(t, secret, "iv", 12)
	return s
}

// next is the sealer after a KeyUpdate.
func (s *clientSealer) next(t testing.TB) *clientSealer {
	return newClientSealer(t, expandLabel(t, s.secret, "traffic upd", 32))
}

// seal makes one record: content, its inner type, padding zeros; outer is the header's type
// (23 but for a test of it) and grow adds bytes to the ciphertext's length (a test of limits).
func (s *clientSealer) seal(outer, inner byte, content []byte, padding int) []byte {
	plain := append(append(bytes.Clone(content), inner), make([]byte, padding)...)
	n := len(plain) + s.aead.Overhead()
	header := []byte{outer, 3, 3, byte(n >> 8), byte(n)}
	nonce := bytes.Clone(s.iv)
	var seq [8]byte
	binary.BigEndian.PutUint64(seq[:], s.seq)
	for i := range seq {
		nonce[4+i] ^= seq[i]
	}
	s.seq++
	return s.aead.Seal(header, nonce, plain, header)
}

// craftedSession is a detached TLS 1.3 session with the given record layer and a sealer for
// the client's records.
func craftedSession(t *testing.T, layer RecordLayer) (LoopCodec, *clientSealer) {
	sc, cc, _, secrets := keyloggedSession(t, layer)
	secret := secrets["CLIENT_TRAFFIC_SECRET_0"]
	raw, _, codec, err := DetachBoring(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close(); codec.Free(); cc.Close() })
	return codec, newClientSealer(t, secret)
}

// keyloggedSession is an established TLS 1.3 session (TLS_AES_128_GCM_SHA256) with the given
// record layer, and its traffic secrets from the client's key log, by label.
func keyloggedSession(t *testing.T, layer RecordLayer) (sc *boringConn, cc *tls.Conn, rec *recordingConn, secrets map[string][]byte) {
	t.Helper()
	srvCfg := testConfig(t)
	srvCfg.RecordLayer = layer
	var keylog bytes.Buffer
	cfg := clientConfig(t, "a.test")
	cfg.KeyLogWriter = &keylog
	sc, cc, rec = handshakenWith(t, srvCfg, cfg)
	if st := sc.State(); st.CipherSuite != tls.TLS_AES_128_GCM_SHA256 {
		t.Fatalf("suite %s, want TLS_AES_128_GCM_SHA256", st.CipherSuiteName())
	}
	secrets = map[string][]byte{}
	for _, line := range strings.Split(keylog.String(), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			secrets[f[0]], _ = hex.DecodeString(f[2])
		}
	}
	for _, label := range []string{"CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0"} {
		if len(secrets[label]) != 32 {
			t.Fatalf("no %s in the key log:\n%s", label, keylog.String())
		}
	}
	return sc, cc, rec, secrets
}

type craftCase struct {
	name    string
	records func(t testing.TB, s *clientSealer) []byte
	plain   string
	err     string // what the AEAD layer says; "" none, "EOF" io.EOF
}

func data(s *clientSealer, text string) []byte { return s.seal(23, 23, []byte(text), 0) }

func repeat(n int, f func() []byte) []byte {
	var out []byte
	for range n {
		out = append(out, f()...)
	}
	return out
}

var keyUpdate = []byte{24, 0, 0, 1, 0}

var craftCases = []craftCase{
	{"padding", func(_ testing.TB, s *clientSealer) []byte { return s.seal(23, 23, []byte("hello"), 300) }, "hello", ""},
	{"empty records", func(_ testing.TB, s *clientSealer) []byte {
		return append(repeat(32, func() []byte { return s.seal(23, 23, nil, 0) }), data(s, "x")...)
	}, "x", ""},
	{"too many empty records", func(_ testing.TB, s *clientSealer) []byte {
		return repeat(33, func() []byte { return s.seal(23, 23, nil, 0) })
	}, "", "TOO_MANY_EMPTY_FRAGMENTS"},
	{"only padding", func(_ testing.TB, s *clientSealer) []byte { return s.seal(23, 0, nil, 9) }, "", "DECRYPTION_FAILED_OR_BAD_RECORD_MAC"},
	{"plaintext over 2^14", func(_ testing.TB, s *clientSealer) []byte {
		return s.seal(23, 23, make([]byte, 1<<14+1), 0)
	}, "", "DATA_LENGTH_TOO_LONG"},
	{"outer type handshake", func(_ testing.TB, s *clientSealer) []byte { return s.seal(22, 23, []byte("x"), 0) }, "", "INVALID_OUTER_RECORD_TYPE"},
	{"inner type change_cipher_spec", func(_ testing.TB, s *clientSealer) []byte { return s.seal(23, 20, []byte{1}, 0) }, "", "UNEXPECTED_RECORD"},
	{"close_notify", func(_ testing.TB, s *clientSealer) []byte {
		return append(data(s, "bye"), s.seal(23, 21, []byte{1, 0}, 0)...)
	}, "bye", "EOF"},
	{"user_canceled", func(_ testing.TB, s *clientSealer) []byte {
		return append(repeat(4, func() []byte { return s.seal(23, 21, []byte{1, 90}, 0) }), data(s, "on")...)
	}, "on", ""},
	{"too many warnings", func(_ testing.TB, s *clientSealer) []byte {
		return repeat(5, func() []byte { return s.seal(23, 21, []byte{1, 90}, 0) })
	}, "", "TOO_MANY_WARNING_ALERTS"},
	{"other warning", func(_ testing.TB, s *clientSealer) []byte { return s.seal(23, 21, []byte{1, 42}, 0) }, "", "BAD_ALERT"},
	{"fatal alert", func(_ testing.TB, s *clientSealer) []byte { return s.seal(23, 21, []byte{2, 40}, 0) }, "", "SSLV3_ALERT_HANDSHAKE_FAILURE"},
	{"long alert", func(_ testing.TB, s *clientSealer) []byte { return s.seal(23, 21, []byte{2, 40, 0}, 0) }, "", "BAD_ALERT"},
	{"NewSessionTicket from the client", func(_ testing.TB, s *clientSealer) []byte {
		return s.seal(23, 22, []byte{4, 0, 0, 4, 1, 2, 3, 4}, 0)
	}, "", "UNEXPECTED_MESSAGE"},
	{"KeyUpdate", func(t testing.TB, s *clientSealer) []byte {
		return append(s.seal(23, 22, keyUpdate, 0), data(s.next(t), "new key")...)
	}, "new key", ""},
	{"KeyUpdate asking for one", func(t testing.TB, s *clientSealer) []byte {
		return append(append(data(s, "a"), s.seal(23, 22, []byte{24, 0, 0, 1, 1}, 0)...), data(s.next(t), "b")...)
	}, "ab", ""},
	{"KeyUpdate over two records", func(t testing.TB, s *clientSealer) []byte {
		return append(append(s.seal(23, 22, keyUpdate[:2], 0), s.seal(23, 22, keyUpdate[2:], 0)...), data(s.next(t), "c")...)
	}, "c", ""},
	{"KeyUpdate then more in its record", func(_ testing.TB, s *clientSealer) []byte {
		return s.seal(23, 22, append(bytes.Clone(keyUpdate), keyUpdate...), 0)
	}, "", "EXCESS_HANDSHAKE_DATA"},
	{"KeyUpdate with a bad value", func(_ testing.TB, s *clientSealer) []byte { return s.seal(23, 22, []byte{24, 0, 0, 1, 2}, 0) }, "", "DECODE_ERROR"},
	{"KeyUpdate of two bytes", func(_ testing.TB, s *clientSealer) []byte { return s.seal(23, 22, []byte{24, 0, 0, 2, 0, 0}, 0) }, "", "DECODE_ERROR"},
	{"data inside a KeyUpdate", func(_ testing.TB, s *clientSealer) []byte {
		return append(s.seal(23, 22, keyUpdate[:2], 0), data(s, "x")...)
	}, "", "UNEXPECTED_RECORD"},
	{"33 KeyUpdates", func(t testing.TB, s *clientSealer) []byte {
		var out []byte
		for range 33 {
			out = append(out, s.seal(23, 22, keyUpdate, 0)...)
			*s = *s.next(t)
		}
		return out
	}, "", "TOO_MANY_KEY_UPDATES"},
}

// TestAEADCraftedRecordsMatchSSL: records crypto/tls never sends, sealed with the client's own
// keys, end the same way on the AEAD layer as on BoringSSL's SSL path: the same plaintext and
// the same error, the one that case expects.
func TestAEADCraftedRecordsMatchSSL(t *testing.T) {
	for _, tc := range craftCases {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]string
			for i, layer := range []RecordLayer{RecordLayerSSL, RecordLayerAEAD} {
				codec, s := craftedSession(t, layer)
				plain, err := openAll(codec, tc.records(t, s), []int{64 << 10})
				got[i] = string(plain) + " / <nil>"
				if err != nil {
					got[i] = string(plain) + " / " + err.Error()
				}
			}
			if got[0] != got[1] {
				t.Errorf("SSL path %q, AEAD path %q", got[0], got[1])
			}
			if want := tc.plain + " / "; !strings.HasPrefix(got[1], want) || !strings.Contains(got[1], tc.err) ||
				(tc.err == "") != strings.HasSuffix(got[1], "<nil>") {
				t.Errorf("AEAD path %q, want %q and %q", got[1], tc.plain, tc.err)
			}
		})
	}
}

// TestAEADCiphertextLimit: a record of 2^14+257 bytes of ciphertext is record_overflow on the
// AEAD layer before it is decrypted (RFC 8446 section 5.2); BoringSSL's SSL path takes 64 bytes
// more and fails it once decrypted, as too much plaintext.
func TestAEADCiphertextLimit(t *testing.T) {
	for layer, want := range map[RecordLayer]string{RecordLayerSSL: "DATA_LENGTH_TOO_LONG", RecordLayerAEAD: "ENCRYPTED_LENGTH_TOO_LONG"} {
		codec, s := craftedSession(t, layer)
		record := s.seal(23, 23, make([]byte, 1<<14+256+1-17), 0)
		if _, err := openAll(codec, record, []int{64 << 10}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", layer, err, want)
		}
	}
}
