package ws

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// refResult is what a naive decoder makes of a client byte stream.
type refResult struct {
	payload   []byte
	pongs     [][]byte
	errCode   CloseCode // the close code of a protocol error; 0 if none
	peerClose bool
	peerCode  CloseCode
	midFrame  bool // the input ended inside a frame
}

// refDecode is an independent, byte-at-a-time reading of RFC 6455 for a
// server, checking the rules in the same order as Conn.
func refDecode(in []byte, maxFrame, maxMsg int64) (r refResult) {
	pos, fragmented, msgLen := 0, false, int64(0)
	for pos < len(in) {
		r.midFrame = true
		if len(in)-pos < 2 {
			return r
		}
		b0, b1 := in[pos], in[pos+1]
		fin, rsv, op, masked := b0&0x80 != 0, b0>>4&7, OpCode(b0&15), b1&0x80 != 0
		hlen, l := 2, uint64(b1&0x7f)
		if l == 126 {
			hlen = 4
		} else if l == 127 {
			hlen = 10
		}
		if masked {
			hlen += 4
		}
		if len(in)-pos < hlen {
			return r
		}
		var ext uint64
		for i := 2; i < hlen-map[bool]int{true: 4, false: 0}[masked]; i++ {
			ext = ext<<8 | uint64(in[pos+i])
		}
		switch {
		case l == 126 && ext < 126, l == 127 && (ext>>63 != 0 || ext <= 0xffff):
			r.errCode = CloseProtocolError
			return r
		case l >= 126:
			l = ext
		}
		var key [4]byte
		if masked {
			copy(key[:], in[pos+hlen-4:pos+hlen])
		}
		control := op >= 8
		known := op <= 2 || (op >= 8 && op <= 10)
		length := int64(l)
		switch {
		case rsv != 0, !known, control && !fin, control && l > 125, !masked:
			r.errCode = CloseProtocolError
			return r
		case control:
		case op == OpText:
			r.errCode = CloseUnsupportedData
			return r
		case op == OpBinary && fragmented, op == OpContinuation && !fragmented:
			r.errCode = CloseProtocolError
			return r
		case length > maxFrame:
			r.errCode = CloseMessageTooBig
			return r
		default:
			if op == OpBinary {
				msgLen = 0
			}
			msgLen += length
			if msgLen > maxMsg {
				r.errCode = CloseMessageTooBig
				return r
			}
			fragmented = !fin
		}
		pos += hlen
		var body []byte
		for i := int64(0); i < length && pos < len(in); i++ {
			body = append(body, in[pos]^key[i%4])
			pos++
		}
		if !control {
			r.payload = append(r.payload, body...)
		}
		if int64(len(body)) < length {
			return r
		}
		r.midFrame = false
		switch op {
		case OpPing:
			r.pongs = append(r.pongs, body)
		case OpClose:
			return refClose(r, body)
		}
	}
	return r
}

func refClose(r refResult, body []byte) refResult {
	switch {
	case len(body) == 0:
		r.peerClose, r.peerCode = true, CloseNoStatus
	case len(body) == 1:
		r.errCode = CloseProtocolError
	default:
		code := int(body[0])<<8 | int(body[1])
		valid := (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999)
		switch {
		case !valid:
			r.errCode = CloseProtocolError
		case !utf8.Valid(body[2:]):
			r.errCode = CloseInvalidPayload
		default:
			r.peerClose, r.peerCode = true, CloseCode(code)
		}
	}
	return r
}

// addReadSeeds gives a fuzz target of (stream, seed, size) its seed corpus: a fragmented
// stream, small frames, and every bad stream of the read tests.
func addReadSeeds(f *testing.F) {
	wire, _, _ := fragmentedStream()
	f.Add(wire[:2000], uint64(1), uint16(1460))
	f.Add(frame(true, OpBinary, []byte("hello"), testKey), uint64(2), uint16(3))
	f.Add(append(frame(false, OpBinary, []byte("a"), 1), frame(true, OpPing, []byte("p"), 2)...), uint64(3), uint16(1))
	for _, bad := range badStreams() {
		f.Add(bad.wire, uint64(4), uint16(64))
	}
}

// fuzzLimits are the size limits of the fuzz targets, small enough to be hit.
const fuzzMaxFrame, fuzzMaxMsg = 1000, 1500

func fuzzConfig() Config {
	cfg := noKeepalive()
	cfg.MaxFrameSize, cfg.MaxMessageSize = fuzzMaxFrame, fuzzMaxMsg
	return cfg
}

// splitRandomly cuts b into pieces of 1 to max bytes.
func splitRandomly(b []byte, seed uint64, max int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 0))
	var out [][]byte
	for len(b) > 0 {
		n := min(len(b), 1+rng.IntN(max))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

func FuzzReadFrame(f *testing.F) {
	addReadSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte, seed uint64, bufSize uint16) {
		want := refDecode(in, fuzzMaxFrame, fuzzMaxMsg)
		sc := &scriptConn{}
		sc.push(splitRandomly(in, seed, 40)...)
		got, err := readAll(NewConn(sc, RoleServer, fuzzConfig()), 1+int(bufSize%2000))

		if !bytes.Equal(got, want.payload) {
			t.Fatalf("payload: got %d bytes, reference %d", len(got), len(want.payload))
		}
		frames := sc.written(t)
		checkReadEnd(t, err, want, frames)
		if len(frames) < len(want.pongs) {
			t.Fatalf("%d frames written, reference has %d pongs", len(frames), len(want.pongs))
		}
		for i, p := range want.pongs {
			if frames[i].op != OpPong || !bytes.Equal(frames[i].payload, p) {
				t.Fatalf("frame %d = %+v, want pong %q", i, frames[i], p)
			}
		}
	})
}

// checkReadEnd compares how the stream ended, and the close frame sent,
// with the reference.
func checkReadEnd(t *testing.T, err error, want refResult, frames []wireFrame) {
	t.Helper()
	closes := 0
	var sent []byte
	for _, f := range frames {
		if f.op == OpClose {
			closes, sent = closes+1, f.payload
		}
	}
	var pe *ProtocolError
	var ce *CloseError
	switch {
	case want.errCode != 0:
		if !errors.As(err, &pe) || pe.Code != want.errCode {
			t.Fatalf("err %v, reference closes with %d", err, want.errCode)
		}
		if closes != 1 || len(sent) < 2 || CloseCode(binary.BigEndian.Uint16(sent)) != want.errCode {
			t.Fatalf("sent close % x, want code %d", sent, want.errCode)
		}
	case want.peerClose:
		normal := want.peerCode == CloseNormal || want.peerCode == CloseGoingAway || want.peerCode == CloseNoStatus
		if normal && err != io.EOF || !normal && (!errors.As(err, &ce) || ce.Code != want.peerCode) {
			t.Fatalf("err %v after the peer's close %d", err, want.peerCode)
		}
		if closes != 1 {
			t.Fatalf("%d close frames sent, want the echo", closes)
		}
	default:
		wantErr := io.EOF
		if want.midFrame {
			wantErr = io.ErrUnexpectedEOF
		}
		if err != wantErr || closes != 0 {
			t.Fatalf("err %v with %d closes sent; want %v and none", err, closes, wantErr)
		}
	}
}
