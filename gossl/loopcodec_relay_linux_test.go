//go:build boringssl && cgo

package gossl

import (
	"bytes"
	"cmp"
	"crypto/tls"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/loop"
)

// echoBackend is the relay's socket to a backend that sends back everything it gets, then its
// FIN.
func echoBackend(t testing.TB) net.Conn {
	t.Helper()
	backend, dialed := tcpPair(t)
	go func() {
		defer backend.Close()
		_ = backend.SetDeadline(time.Now().Add(testTimeout))
		_, _ = io.Copy(backend, backend)
		_ = backend.(*net.TCPConn).CloseWrite()
	}()
	return dialed
}

// relayDetached detaches sc and registers it with an echo backend on a loop of its own; the
// session's result arrives on the channel.
func relayDetached(t testing.TB, sc *boringConn) (plaintext []byte, result chan loop.Result) {
	t.Helper()
	raw, plaintext, codec, err := DetachBoring(sc)
	if err != nil {
		t.Fatal(err)
	}
	e, err := loop.New(loop.Config{Loops: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	result = make(chan loop.Result, 1)
	_, err = e.Register(loop.Spec{
		Client:  loop.Side{Conn: raw, Codec: codec, Pending: plaintext},
		Backend: loop.Side{Conn: echoBackend(t)},
		OnClose: func(r loop.Result) { codec.Free(); result <- r },
	})
	if err != nil {
		t.Fatal(err)
	}
	return plaintext, result
}

func waitResult(t testing.TB, result chan loop.Result) loop.Result {
	t.Helper()
	select {
	case r := <-result:
		return r
	case <-time.After(testTimeout):
		t.Fatal("the session did not end")
		return loop.Result{}
	}
}

// TestLoopRelaysDetachedSession: a crypto/tls client talks through the loop (BoringSSL codec on
// the client side) to an echo backend: writes of random sizes up to 200 KiB come back byte for
// byte, and close_notify ends each direction (the client's reaches the backend as a FIN, the
// backend's FIN reaches the client as close_notify).
func TestLoopRelaysDetachedSession(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			sc, cc, _ := handshaken(t, v, layer)
			_, result := relayDetached(t, sc)
			_ = cc.SetDeadline(time.Now().Add(testTimeout))
			rng := rand.New(rand.NewPCG(uint64(v), 1))
			var sent []byte
			for range 12 {
				sent = append(sent, randomBytes(rng, 1+rng.IntN(200<<10))...)
			}
			var wg sync.WaitGroup
			var werr error
			wg.Add(1)
			go func() {
				defer wg.Done()
				for rest := sent; len(rest) > 0 && werr == nil; {
					k := min(len(rest), 1+rng.IntN(200<<10))
					_, werr = cc.Write(rest[:k])
					rest = rest[k:]
				}
				werr = cmp.Or(werr, cc.CloseWrite())
			}()
			got, err := io.ReadAll(cc)
			wg.Wait()
			if werr != nil || err != nil || !bytes.Equal(got, sent) {
				t.Fatalf("%s: write %v, read %v, %d of %d bytes back (equal %v)", tls.VersionName(v), werr, err,
					len(got), len(sent), bytes.Equal(got, sent))
			}
			if r := waitResult(t, result); r.Err != nil || r.Up != int64(len(sent)) || r.Down != int64(len(sent)) {
				t.Fatalf("%s: session result %+v, want a clean end with %d bytes each way", tls.VersionName(v), r, len(sent))
			}
		}
	})
}

// TestDetachKeepsPendingPlaintextAndPartialRecord: the server has read 5 bytes of a record when
// it is detached; the rest of that record and the next one come back as plaintext, the record
// that had only partly arrived stays in the engine and is completed by the loop's first read.
func TestDetachKeepsPendingPlaintextAndPartialRecord(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		sc, cc, rec := handshaken(t, 0, layer)
		a, b, c := pattern(1000), bytes.Repeat([]byte("b"), 2000), bytes.Repeat([]byte("c"), 3000)
		wire := sealed(t, cc, rec, a, b, c)
		raw := rec.Conn
		if _, err := raw.Write(wire[:len(wire)-10]); err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 5)
		if _, err := io.ReadFull(sc, head); err != nil {
			t.Fatal(err)
		}
		plaintext, result := relayDetached(t, sc)
		if want := append(bytes.Clone(a[5:]), b...); !bytes.Equal(plaintext, want) {
			t.Fatalf("detach gave %d bytes of plaintext, want the rest of the first record and the second (%d)", len(plaintext), len(want))
		}
		if _, err := raw.Write(wire[len(wire)-10:]); err != nil {
			t.Fatal(err)
		}
		want := append(append(bytes.Clone(a[5:]), b...), c...)
		got := make([]byte, len(want))
		_ = cc.SetDeadline(time.Now().Add(testTimeout))
		if _, err := io.ReadFull(cc, got); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("echo: %v, equal %v", err, bytes.Equal(got, want))
		}
		cc.Close()
		if r := waitResult(t, result); r.Up != int64(len(want)) {
			t.Fatalf("session result %+v, want %d bytes up", r, len(want))
		}
	})
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}
