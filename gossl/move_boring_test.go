//go:build boringssl && cgo

package gossl

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/boring"
)

// moveTestServer is a fresh server, as the new process of an upgrade has: same certificates,
// its own C context, the AEAD layer sending a KeyUpdate after every keyUpdateAfter records.
func moveTestServer(t *testing.T, keyUpdateAfter uint64) *Server {
	t.Helper()
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	cfg.keyUpdateAfter = keyUpdateAfter
	srv, err := p.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// moveCodec exports codec's session, frees it (the old process lets go of it) and resumes it
// on srv.
func moveCodec(t *testing.T, codec LoopCodec, srv *Server) LoopCodec {
	t.Helper()
	state, err := codec.(MovableCodec).MarshalMove()
	if err != nil {
		t.Fatalf("MarshalMove: %v", err)
	}
	codec.Free()
	moved, err := srv.ResumeMoved(state)
	clear(state)
	if err != nil {
		t.Fatalf("ResumeMoved: %v", err)
	}
	t.Cleanup(moved.Free)
	return moved
}

// serverSend seals msg with codec and writes it to raw.
func serverSend(t *testing.T, codec LoopCodec, raw net.Conn, msg []byte) {
	t.Helper()
	out, err := codec.Seal(msg, 0, make([]byte, boring.SealBound(len(msg))))
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	if _, err := raw.Write(out); err != nil {
		t.Fatal(err)
	}
}

// serverRecv reads raw and opens with codec until n bytes of plaintext came, writing what the
// codec answers (a KeyUpdate) back as the loop does.
func serverRecv(t *testing.T, codec LoopCodec, raw net.Conn, n int) []byte {
	t.Helper()
	_ = raw.SetReadDeadline(time.Now().Add(testTimeout))
	buf := make([]byte, 64<<10)
	var plain []byte
	for len(plain) < n {
		k, err := raw.Read(buf[:len(buf)-codec.Growth()])
		if err != nil {
			t.Fatalf("read after %d bytes: %v", len(plain), err)
		}
		p, reply, err := codec.Open(buf[:k])
		plain = append(plain, buf[:p]...)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if reply != nil {
			if _, err := raw.Write(reply); err != nil {
				t.Fatal(err)
			}
		}
	}
	return plain
}

// exchangeMoved sends one message each way between a crypto/tls client and codec and checks both
// arrive whole.
func exchangeMoved(t *testing.T, codec LoopCodec, raw net.Conn, cc *tls.Conn, tag string) {
	t.Helper()
	up, down := []byte("up "+tag+strings.Repeat("u", 3000)), []byte("down "+tag+strings.Repeat("d", 5000))
	if _, err := cc.Write(up); err != nil {
		t.Fatal(err)
	}
	if got := serverRecv(t, codec, raw, len(up)); !bytes.Equal(got, up) {
		t.Fatalf("%s: the server opened %q, want %q", tag, got, up)
	}
	serverSend(t, codec, raw, down)
	got := make([]byte, len(down))
	if _, err := io.ReadFull(cc, got); err != nil || !bytes.Equal(got, down) {
		t.Fatalf("%s: the client read %q (%v), want %q", tag, got, err, down)
	}
}

// TestMoveTLSSessionToAnotherEngine: a detached TLS 1.3 session, exported mid-stream from one
// engine (either record layer) and resumed on another server's fresh engine, carries on
// byte-exact both ways with a crypto/tls client, also through KeyUpdates the server sends
// before (the AEAD layer, every 3 records) and after the move, and moves on again from there.
func TestMoveTLSSessionToAnotherEngine(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		srvCfg := testConfig(t)
		srvCfg.RecordLayer = layer
		srvCfg.keyUpdateAfter = 3
		sc, cc, _ := handshakenWith(t, srvCfg, clientConfig(t, "a.test"))
		raw, _, codec, err := DetachBoring(sc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		_ = cc.SetDeadline(time.Now().Add(testTimeout))
		for i := range 5 {
			exchangeMoved(t, codec, raw, cc, fmt.Sprint("before ", i))
		}
		codec = moveCodec(t, codec, moveTestServer(t, 3))
		for i := range 5 {
			exchangeMoved(t, codec, raw, cc, fmt.Sprint("after ", i))
		}
		codec = moveCodec(t, codec, moveTestServer(t, 3)) // a second upgrade moves it on again
		for i := range 5 {
			exchangeMoved(t, codec, raw, cc, fmt.Sprint("after the second move ", i))
		}
	})
}

// craftedClient is a detached TLS 1.3 session (AES-128-GCM) with the given record layer, its
// server socket, the client's socket and a crafted client on it.
func craftedClient(t *testing.T, layer RecordLayer) (codec LoopCodec, raw, client net.Conn, k *clientKeys) {
	t.Helper()
	sc, cc, rec, secrets := keyloggedSession(t, layer)
	raw, _, codec, err := DetachBoring(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close(); codec.Free() })
	// crypto/tls takes the session tickets with a first record of data; its reads end there.
	serverSend(t, codec, raw, []byte("sync"))
	_ = cc.SetDeadline(time.Now().Add(testTimeout))
	if _, err := io.ReadFull(cc, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	k = &clientKeys{seal: newClientSealer(t, secrets["CLIENT_TRAFFIC_SECRET_0"]),
		open: newClientSealer(t, secrets["SERVER_TRAFFIC_SECRET_0"]), findSeq: true}
	return codec, raw, rec.Conn, k
}

// clientKeys is a crafted TLS 1.3 client: its sealer, and an opener of the server's records that
// follows the server's KeyUpdates. findSeq: the opener's sequence number is not known yet (the
// server sealed its tickets and the first data for crypto/tls); the first record tells it.
type clientKeys struct {
	seal, open *clientSealer
	findSeq    bool
}

// openServer reads n bytes of the server's application data from client, following the
// server's KeyUpdates.
func (k *clientKeys) openServer(t *testing.T, client net.Conn, n int) []byte {
	t.Helper()
	var plain []byte
	_ = client.SetReadDeadline(time.Now().Add(testTimeout))
	for len(plain) < n {
		header := make([]byte, 5)
		if _, err := io.ReadFull(client, header); err != nil {
			t.Fatalf("client read after %d bytes: %v", len(plain), err)
		}
		body := make([]byte, int(header[3])<<8|int(header[4]))
		if _, err := io.ReadFull(client, body); err != nil {
			t.Fatal(err)
		}
		inner := k.openRecord(t, header, body)
		switch typ := inner[len(inner)-1]; typ {
		case 23:
			plain = append(plain, inner[:len(inner)-1]...)
		case 22:
			k.open = k.open.next(t) // the server's KeyUpdate
		default:
			t.Fatalf("the server sent a record of type %d: %x", typ, inner)
		}
	}
	return plain
}

// openRecord opens one of the server's records: its content and inner type, padding stripped.
func (k *clientKeys) openRecord(t *testing.T, header, body []byte) []byte {
	t.Helper()
	for seq := k.open.seq; seq < k.open.seq+8; seq++ {
		nonce := bytes.Clone(k.open.iv)
		for i := range 8 {
			nonce[4+i] ^= byte(seq >> (56 - 8*i))
		}
		if plain, err := k.open.aead.Open(nil, nonce, body, header); err == nil {
			k.open.seq, k.findSeq = seq+1, false
			return bytes.TrimRight(plain, "\x00")
		}
		if !k.findSeq {
			break
		}
	}
	t.Fatalf("the server's record %d does not open", k.open.seq)
	return nil
}

// send writes records to the server and checks the server opens want from them.
func (k *clientKeys) send(t *testing.T, codec LoopCodec, raw, client net.Conn, records []byte, want string) {
	t.Helper()
	if _, err := client.Write(records); err != nil {
		t.Fatal(err)
	}
	if got := serverRecv(t, codec, raw, len(want)); string(got) != want {
		t.Fatalf("the server opened %q, want %q", got, want)
	}
}

// TestMoveTLSSessionThroughClientKeyUpdates: a client's KeyUpdate before the move and after it:
// the exported state has the current keys, not the handshake's, and the AEAD layer that takes
// over follows the next KeyUpdate; the server's data reaches the client both sides of the move.
func TestMoveTLSSessionThroughClientKeyUpdates(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		codec, raw, client, k := craftedClient(t, layer)
		k.send(t, codec, raw, client, append(k.seal.seal(23, 22, keyUpdate, 0), data(k.seal.next(t), "one")...), "one")
		k.seal = k.seal.next(t)
		k.seal.seq = 1
		serverSend(t, codec, raw, []byte("two"))
		if got := k.openServer(t, client, 3); string(got) != "two" {
			t.Fatalf("the client read %q before the move", got)
		}
		codec = moveCodec(t, codec, moveTestServer(t, 0))
		k.send(t, codec, raw, client, data(k.seal, "three"), "three")
		k.send(t, codec, raw, client, append(k.seal.seal(23, 22, keyUpdate, 0), data(k.seal.next(t), "four")...), "four")
		k.seal = k.seal.next(t)
		k.seal.seq = 1
		k.send(t, codec, raw, client, data(k.seal, "five"), "five")
		serverSend(t, codec, raw, []byte("six"))
		if got := k.openServer(t, client, 3); string(got) != "six" {
			t.Fatalf("the client read %q after the move", got)
		}
	})
}

// moveRefused checks that codec's session cannot move now, for the reason want.
func moveRefused(t *testing.T, codec LoopCodec, want string) {
	t.Helper()
	state, err := codec.(MovableCodec).MarshalMove()
	var me *MoveError
	if !errors.As(err, &me) || me.Reason != want || state != nil {
		t.Fatalf("MarshalMove: %v (%d bytes), want the reason %q", err, len(state), want)
	}
}

// feed writes records that open to nothing yet to the server, and lets the codec take them all.
func (k *clientKeys) feed(t *testing.T, codec LoopCodec, raw, client net.Conn, records []byte) {
	t.Helper()
	if _, err := client.Write(records); err != nil {
		t.Fatal(err)
	}
	_ = raw.SetReadDeadline(time.Now().Add(testTimeout))
	buf := make([]byte, 64<<10)
	if _, err := io.ReadFull(raw, buf[:len(records)]); err != nil {
		t.Fatal(err)
	}
	if n, reply, err := codec.Open(buf[:len(records)]); n != 0 || reply != nil || err != nil {
		t.Fatalf("Open: %d bytes, a reply of %d, %v; want nothing yet", n, len(reply), err)
	}
}

// TestMoveTLSSessionRefusedTLS12: a TLS 1.2 session stays, on either record layer.
func TestMoveTLSSessionRefusedTLS12(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		codec, _, _, _ := detached(t, tls.VersionTLS12, layer)
		moveRefused(t, codec, "not TLS 1.3")
	})
}

// TestMoveTLSSessionRefusedPartialRecord: a record of which only part has arrived is inside the
// engine: the session cannot move until it is whole, and then moves and goes on.
func TestMoveTLSSessionRefusedPartialRecord(t *testing.T) {
	for layer, want := range map[RecordLayer]string{
		RecordLayerSSL: "unprocessed TLS bytes are buffered", RecordLayerAEAD: "a partial TLS record is buffered",
	} {
		t.Run(layer.String(), func(t *testing.T) {
			codec, raw, client, k := craftedClient(t, layer)
			record := data(k.seal, "whole")
			k.feed(t, codec, raw, client, record[:9])
			moveRefused(t, codec, want)
			k.send(t, codec, raw, client, record[9:], "whole")
			codec = moveCodec(t, codec, moveTestServer(t, 0))
			k.send(t, codec, raw, client, data(k.seal, "on"), "on")
		})
	}
}

// TestMoveTLSSessionRefusedHalfKeyUpdate: on the AEAD layer a KeyUpdate of which one record
// has come is a post-handshake message in flight, and the session stays until it is whole.
func TestMoveTLSSessionRefusedHalfKeyUpdate(t *testing.T) {
	codec, raw, client, k := craftedClient(t, RecordLayerAEAD)
	k.feed(t, codec, raw, client, k.seal.seal(23, 22, keyUpdate[:2], 0))
	moveRefused(t, codec, "a post-handshake message is in flight")
	k.send(t, codec, raw, client, append(k.seal.seal(23, 22, keyUpdate[2:], 0), data(k.seal.next(t), "x")...), "x")
	k.seal = k.seal.next(t)
	k.seal.seq = 1
	codec = moveCodec(t, codec, moveTestServer(t, 0))
	k.send(t, codec, raw, client, data(k.seal, "y"), "y")
}

// TestMoveTLSSessionKeyUpdateAnswer: a KeyUpdate that asks for one is answered. BoringSSL's
// SSL path holds its answer until the next write, so the session stays until it went out; the
// AEAD layer answers at once (the codec's reply) and the session moves. Either way the client
// reads the server's data under the server's next key across the move.
func TestMoveTLSSessionKeyUpdateAnswer(t *testing.T) {
	forEachRecordLayer(t, func(t *testing.T, layer RecordLayer) {
		codec, raw, client, k := craftedClient(t, layer)
		k.send(t, codec, raw, client, append(k.seal.seal(23, 22, []byte{24, 0, 0, 1, 1}, 0), data(k.seal.next(t), "a")...), "a")
		k.seal = k.seal.next(t)
		k.seal.seq = 1
		if layer == RecordLayerSSL {
			moveRefused(t, codec, "TLS output waits to go out")
			serverSend(t, codec, raw, []byte("b"))
			if got := k.openServer(t, client, 1); string(got) != "b" {
				t.Fatalf("the client read %q", got)
			}
		}
		codec = moveCodec(t, codec, moveTestServer(t, 0))
		serverSend(t, codec, raw, []byte("c"))
		if got := k.openServer(t, client, 1); string(got) != "c" {
			t.Fatalf("the client read %q after the move", got)
		}
		k.send(t, codec, raw, client, data(k.seal, "d"), "d")
	})
}
