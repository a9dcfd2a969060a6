//go:build boringssl && cgo

package gossl

import (
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// forEachRecordLayer runs a BoringSSL test once with each record layer.
func forEachRecordLayer(t *testing.T, test func(t *testing.T, layer RecordLayer)) {
	t.Helper()
	for _, layer := range []RecordLayer{RecordLayerSSL, RecordLayerAEAD} {
		t.Run(layer.String(), func(t *testing.T) { test(t, layer) })
	}
}

// handshaken is an established BoringSSL server connection (with the given record layer) and
// its crypto/tls client (at most maxVersion; 0: TLS 1.3), whose writes the test can record
// instead of sending (rec).
func handshaken(t testing.TB, maxVersion uint16, layer RecordLayer) (sc *boringConn, cc *tls.Conn, rec *recordingConn) {
	t.Helper()
	srvCfg := testConfig(t)
	srvCfg.RecordLayer = layer
	cfg := clientConfig(t, "a.test")
	cfg.MaxVersion = maxVersion
	return handshakenWith(t, srvCfg, cfg)
}

// handshakenWith is handshaken with the test's server and client configs.
func handshakenWith(t testing.TB, srvCfg ServerConfig, cfg *tls.Config) (sc *boringConn, cc *tls.Conn, rec *recordingConn) {
	t.Helper()
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := p.NewServer(srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	serverRaw, clientRaw := tcpPair(t)
	sc = srv.Wrap(serverRaw).(*boringConn)
	t.Cleanup(func() { sc.Close() })
	rec = &recordingConn{Conn: clientRaw}
	cc = tlsClient(rec, cfg)
	t.Cleanup(func() { cc.Close() })
	errc := make(chan error, 1)
	go func() { errc <- cc.Handshake() }()
	if err := sc.HandshakeContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return sc, cc, rec
}

// detached is handshaken, detached: the codec and the raw server socket, closed at the end.
func detached(t testing.TB, maxVersion uint16, layer RecordLayer) (codec LoopCodec, raw net.Conn, cc *tls.Conn, rec *recordingConn) {
	t.Helper()
	sc, cc, rec := handshaken(t, maxVersion, layer)
	raw, plaintext, codec, err := DetachBoring(sc)
	if err != nil || len(plaintext) != 0 {
		t.Fatalf("DetachBoring: %v, %d bytes of plaintext", err, len(plaintext))
	}
	t.Cleanup(func() { raw.Close(); codec.Free() })
	_ = cc.SetDeadline(time.Now().Add(testTimeout))
	return codec, raw, cc, rec
}

// sealed is what the client sends for each of writes, as recorded wire bytes.
func sealed(t testing.TB, cc *tls.Conn, rec *recordingConn, writes ...[]byte) []byte {
	t.Helper()
	rec.start()
	defer rec.stop()
	for _, w := range writes {
		if _, err := cc.Write(w); err != nil {
			t.Fatal(err)
		}
	}
	return rec.take()
}

// openAll feeds wire to codec in pieces of the given sizes (cycled), each in a buffer with the
// codec's Growth of room behind it as the loop lends it, and returns the plaintext and the
// first error.
func openAll(codec LoopCodec, wire []byte, sizes []int) ([]byte, error) {
	var plain []byte
	buf := make([]byte, 0, 64<<10)
	for i := 0; len(wire) > 0; i++ {
		k := min(len(wire), max(1, sizes[i%len(sizes)]), cap(buf)-codec.Growth())
		n, _, err := codec.Open(append(buf[:0], wire[:k]...))
		plain = append(plain, buf[:n]...)
		wire = wire[k:]
		if err != nil {
			return plain, err
		}
	}
	return plain, nil
}
