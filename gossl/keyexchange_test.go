package gossl

import (
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/cpu"
)

// goClientGroups is every key exchange Go's client can offer.
var goClientGroups = []tls.CurveID{
	tls.X25519MLKEM768, tls.SecP256r1MLKEM768, tls.SecP384r1MLKEM1024,
	tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521,
}

// TestProvidersOfferTheSameGroups: a client offering one group at a time finds the same groups
// under both providers, keyExchanges, and nothing else.
func TestProvidersOfferTheSameGroups(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts := startServer(t, p, testConfig(t), echo)
		var offered []tls.CurveID
		for _, group := range goClientGroups {
			cfg := clientConfig(t, "a.test")
			cfg.CurvePreferences = []tls.CurveID{group}
			c, err := tls.DialWithDialer(&net.Dialer{Timeout: testTimeout}, "tcp", ts.addr(), cfg)
			if err != nil {
				continue // the server does not offer it: the handshake fails
			}
			if got := c.ConnectionState().CurveID; got != group {
				t.Errorf("offered only %v, negotiated %v", group, got)
			}
			c.Close()
			offered = append(offered, group)
		}
		if !slices.Equal(offered, keyExchanges) {
			t.Errorf("%s accepts %v, want %v", p.Name(), offered, keyExchanges)
		}
	})
}

// TestPostQuantumGroupNegotiated: Go's client offers both X25519MLKEM768 and X25519 by default,
// and both sides see the hybrid chosen.
func TestPostQuantumGroupNegotiated(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		states := make(chan ConnState, 1)
		ts := startServer(t, p, testConfig(t), func(c Conn) {
			if c.HandshakeContext(t.Context()) == nil {
				states <- c.State()
			}
			echo(c)
		})
		c := dial(t, ts.addr(), clientConfig(t, "a.test"))
		roundTrip(t, c, []byte("hi"))
		if got := c.ConnectionState().CurveID; got != tls.X25519MLKEM768 {
			t.Errorf("client negotiated %v, want X25519MLKEM768", got)
		}
		select {
		case st := <-states:
			if st.Group != tls.X25519MLKEM768 {
				t.Errorf("server's State says %v, want X25519MLKEM768", st.Group)
			}
		case <-time.After(testTimeout):
			t.Fatal("the server never finished its handshake")
		}
	})
}

// TestServerPrefersPostQuantum: a client that lists X25519 before X25519MLKEM768 (and sends key
// shares for both) still gets the hybrid: the server's preference decides, under both
// providers (BoringSSL follows the client's order unless told otherwise).
func TestServerPrefersPostQuantum(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts := startServer(t, p, testConfig(t), echo)
		cfg := clientConfig(t, "a.test")
		cfg.CurvePreferences = []tls.CurveID{tls.X25519MLKEM768, tls.X25519}
		hello := clientHelloWith(t, cfg)
		groups := helloFields(t, hello).exts[extSupportedGroups][2:]
		if len(groups) != 4 || tls.CurveID(binary.BigEndian.Uint16(groups)) != tls.X25519MLKEM768 {
			t.Fatalf("Go's client offered groups %x, want X25519MLKEM768 then X25519", groups)
		}
		reverseUint16s(groups) // X25519 first now
		share := helloFields(t, serverHello(t, ts.addr(), hello)).exts[extKeyShare]
		if len(share) < 2 || tls.CurveID(binary.BigEndian.Uint16(share)) != tls.X25519MLKEM768 {
			t.Errorf("the server's key share is %x, want X25519MLKEM768 (%04x)", share, uint16(tls.X25519MLKEM768))
		}
	})
}

// TestServerPrefersAES128 (TLS 1.2): clients that list AES-256-GCM first, including OpenSSL's
// default order (AES-256-GCM, ChaCha20, AES-128-GCM), get AES-128-GCM, the server's first
// choice, under both providers.
func TestServerPrefersAES128(t *testing.T) {
	if !(cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ) && !(cpu.ARM64.HasAES && cpu.ARM64.HasPMULL) {
		t.Skip("no AES hardware: crypto/tls then prefers ChaCha20 whatever the client says")
	}
	const (
		aes128 = tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
		aes256 = tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
		chacha = tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
	)
	cfg := clientConfig(t, "a.test")
	cfg.MaxVersion = tls.VersionTLS12
	cfg.CipherSuites = []uint16{aes128, aes256, chacha}
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts := startServer(t, p, testConfig(t), echo)
		for _, order := range [][]uint16{{aes256, aes128, chacha}, {aes256, chacha, aes128}} {
			hello := clientHelloWith(t, cfg)
			suites := helloFields(t, hello).suites
			if len(suites) != 2*len(order) {
				t.Fatalf("Go's client offered suites %x, want the three configured", suites)
			}
			for i, id := range order { // reorder in place
				binary.BigEndian.PutUint16(suites[2*i:], id)
			}
			chosen := binary.BigEndian.Uint16(helloFields(t, serverHello(t, ts.addr(), hello)).suites)
			if chosen != aes128 {
				t.Errorf("client order %x: the server chose %s, want %s", suites, tls.CipherSuiteName(chosen), tls.CipherSuiteName(aes128))
			}
		}
	})
}

// TLS extension numbers (RFC 8446).
const (
	extSupportedGroups = 10
	extKeyShare        = 51
)

// clientHelloWith is the first record a Go client with cfg sends: its ClientHello.
func clientHelloWith(t testing.TB, cfg *tls.Config) []byte {
	t.Helper()
	clientEnd, testEnd := net.Pipe()
	defer testEnd.Close()
	go func() { defer clientEnd.Close(); _ = tls.Client(clientEnd, cfg).Handshake() }()
	_ = testEnd.SetDeadline(time.Now().Add(testTimeout))
	return readRecord(t, testEnd)
}

// serverHello sends hello to the server at addr and returns the first record of its answer.
func serverHello(t *testing.T, addr string, hello []byte) []byte {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(testTimeout))
	if _, err := c.Write(hello); err != nil {
		t.Fatal(err)
	}
	return readRecord(t, c)
}

func readRecord(t testing.TB, r io.Reader) []byte {
	t.Helper()
	header := make([]byte, 5)
	if _, err := io.ReadFull(r, header); err != nil {
		t.Fatalf("reading a TLS record: %v", err)
	}
	body := make([]byte, binary.BigEndian.Uint16(header[3:]))
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatalf("reading a TLS record: %v", err)
	}
	return append(header, body...)
}

// hello is what the tests read from a ClientHello or ServerHello record: its cipher suites
// (the one chosen, in a ServerHello) and its extensions, all slices of the record, so changing
// them changes the record.
type hello struct {
	suites []byte
	exts   map[uint16][]byte
}

// helloFields parses the hello at the start of record (one from a real implementation; the
// test fails on anything else, such as an alert).
func helloFields(t *testing.T, record []byte) hello {
	t.Helper()
	if len(record) < 5+4+2+32+1 || record[0] != 22 || (record[5] != 1 && record[5] != 2) {
		t.Fatalf("want a handshake record with a hello, got %x", record)
	}
	msg := record[5+4+2+32:]  // record and handshake headers, version, random
	msg = msg[1+int(msg[0]):] // session id
	var h hello
	if record[5] == 1 { // ClientHello: suites, then compression methods
		n := int(binary.BigEndian.Uint16(msg))
		h.suites, msg = msg[2:2+n], msg[2+n:]
		msg = msg[1+int(msg[0]):]
	} else { // ServerHello: the chosen suite and compression method
		h.suites, msg = msg[:2], msg[3:]
	}
	exts := msg[2 : 2+int(binary.BigEndian.Uint16(msg))]
	h.exts = map[uint16][]byte{}
	for len(exts) >= 4 {
		n := int(binary.BigEndian.Uint16(exts[2:]))
		h.exts[binary.BigEndian.Uint16(exts)] = exts[4 : 4+n]
		exts = exts[4+n:]
	}
	return h
}

// reverseUint16s reverses a list of 16-bit ids in place.
func reverseUint16s(b []byte) {
	for i, j := 0, len(b)-2; i < j; i, j = i+2, j-2 {
		b[i], b[i+1], b[j], b[j+1] = b[j], b[j+1], b[i], b[i+1]
	}
}
