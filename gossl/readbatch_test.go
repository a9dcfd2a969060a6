package gossl

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// TestReadReturnsEveryBufferedRecord: three records that arrive in one socket write come out of
// one Read, with both providers, so the relay forwards them as one batch.
func TestReadReturnsEveryBufferedRecord(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		srv, err := p.NewServer(testConfig(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		serverRaw, clientRaw := tcpPair(t)
		sc := srv.Wrap(serverRaw)
		defer sc.Close()
		recorder := &recordingConn{Conn: clientRaw}
		cc := tlsClient(recorder, clientConfig(t, "a.test"))
		defer cc.Close()
		go sc.HandshakeContext(t.Context())
		if err := cc.Handshake(); err != nil {
			t.Fatal(err)
		}
		recorder.start() // the three records leave together, in one socket write
		for _, part := range []string{"tick-1 ", "tick-2 ", "tick-3"} {
			if _, err := cc.Write([]byte(part)); err != nil {
				t.Fatal(err)
			}
		}
		recorder.stop()
		if _, err := clientRaw.Write(recorder.recorded()); err != nil {
			t.Fatal(err)
		}
		sc.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 1024)
		n, err := sc.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		if want := "tick-1 tick-2 tick-3"; string(buf[:n]) != want {
			t.Errorf("one Read gave %q, want all three records: %q", buf[:n], want)
		}
		// The connection still works after Read looked for more than there was.
		if _, err := cc.Write([]byte("next")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(sc, buf[:4]); err != nil || !bytes.Equal(buf[:4], []byte("next")) {
			t.Errorf("after the batch: %q %v", buf[:4], err)
		}
	})
}
