package mc

import (
	"bufio"
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
	"unicode/utf8"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

var (
	// A 1.8 client pinging localhost:25565.
	handshake18 = unhex("0f 00 2f 09 6c6f63616c686f7374 63dd 01")
	// A Forge 1.20.1 client (protocol 763) joining mc.example.net:25565.
	handshake120FML = unhex("1b 00 fb05 14 6d632e6578616d706c652e6e6574 00 464d4c33 00 63dd 02")
)

// frameOf builds a handshake frame from raw body fields.
func frameOf(body ...[]byte) []byte {
	b := bytes.Join(body, nil)
	return append(AppendVarInt(nil, int32(len(b))), b...)
}

// hostField is a VarInt-prefixed address string.
func hostField(host string) []byte {
	return append(AppendVarInt(nil, int32(len(host))), host...)
}

func TestParseHandshakeRealClients(t *testing.T) {
	cases := []struct {
		name string
		wire []byte
		want Handshake
	}{
		{"1.8 status", handshake18, Handshake{Protocol: 47, Host: "localhost", Port: 25565, NextState: NextStatus}},
		{"1.20.1 forge login", handshake120FML, Handshake{Protocol: 763, Host: "mc.example.net", HostSuffix: "\x00FML3\x00", Port: 25565, NextState: NextLogin}},
		{"1.20.5 transfer", frameOf(unhex("00 fe05"), hostField("a.example"), unhex("1f90 03")),
			Handshake{Protocol: 766, Host: "a.example", Port: 8080, NextState: NextTransfer}},
		{"snapshot protocol", frameOf(unhex("00 8180808004"), hostField(""), unhex("0000 01")),
			Handshake{Protocol: 0x40000001, Port: 0, NextState: NextStatus}},
		{"255 characters of 3 bytes", frameOf(unhex("00 2f"), hostField(strings.Repeat("語", 255)), unhex("63dd 02")),
			Handshake{Protocol: 47, Host: strings.Repeat("語", 255), Port: 25565, NextState: NextLogin}},
		{"254 units + 1 ASCII in surrogate pairs", frameOf(unhex("00 2f"), hostField(strings.Repeat("😀", 127)+"a"), unhex("63dd 02")),
			Handshake{Protocol: 47, Host: strings.Repeat("😀", 127) + "a", Port: 25565, NextState: NextLogin}},
	}
	for _, tc := range cases {
		// A status request after the handshake is not consumed.
		in := append(bytes.Clone(tc.wire), 0x01, 0x00)
		h, n, err := ParseHandshake(in, 0)
		if err != nil || n != len(tc.wire) {
			t.Fatalf("%s: n %d, %v", tc.name, n, err)
		}
		if !bytes.Equal(h.Raw, tc.wire) {
			t.Errorf("%s: Raw = % x", tc.name, h.Raw)
		}
		if h.Raw = nil; !reflect.DeepEqual(h, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, h, tc.want)
		}
		if got := h.AppendFrame(nil, h.Host); !bytes.Equal(got, tc.wire) {
			t.Errorf("%s: AppendFrame with the same host = % x, want % x", tc.name, got, tc.wire)
		}
		testutil.CheckPrefixesNeedMore(t, tc.wire, parseHandshakeDefault, ErrNeedMore)
	}
}

func parseHandshakeDefault(b []byte) (Handshake, int, error) { return ParseHandshake(b, 0) }

func TestHandshakeEncodeParseRoundTrip(t *testing.T) {
	suffixes := []string{"", "\x00FML\x00", "\x00FML2\x00", "\x00FML3\x00"}
	roundTrip := func(protocol int32, host string, port uint16, state, suffix uint8) bool {
		if strings.IndexByte(host, 0) >= 0 || !utf8.ValidString(host) {
			return true // not a host a parse can produce
		}
		h := Handshake{Protocol: protocol, Host: host, HostSuffix: suffixes[int(suffix)%len(suffixes)],
			Port: port, NextState: NextState(1 + int(state)%3)}
		wire := h.AppendFrame(nil, h.Host)
		got, n, err := ParseHandshake(wire, MaxFrameLen)
		if utf16Len(h.Host+h.HostSuffix) > MaxHostChars {
			return errors.Is(err, ErrHostTooLong)
		}
		got.Raw, h.Raw = nil, nil
		return err == nil && n == len(wire) && reflect.DeepEqual(got, h)
	}
	if err := quick.Check(roundTrip, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
}

func TestHandshakeRewriteKeepsSuffix(t *testing.T) {
	h, _, err := ParseHandshake(handshake120FML, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := unhex("18 00 fb05 11 6261636b656e642e6c616e 00 464d4c33 00 0000 02")
	h.Port = 0
	prefix := []byte("keep")
	got := h.AppendFrame(prefix, "backend.lan")
	if !bytes.Equal(got[:4], prefix) || !bytes.Equal(got[4:], want) {
		t.Errorf("AppendFrame = % x, want keep + % x", got, want)
	}
}

func TestParseHandshakeRejects(t *testing.T) {
	cases := []struct {
		name    string
		wire    []byte
		maxBody int
		want    error
		offset  int
	}{
		{"packet id 1", unhex("0f 01 2f 09 6c6f63616c686f7374 63dd 01"), 0, ErrPacketID, 1},
		{"next state 0", unhex("0f 00 2f 09 6c6f63616c686f7374 63dd 00"), 0, ErrNextState, 15},
		{"next state 4", unhex("0f 00 2f 09 6c6f63616c686f7374 63dd 04"), 0, ErrNextState, 15},
		{"trailing byte", unhex("10 00 2f 09 6c6f63616c686f7374 63dd 01 00"), 0, ErrTrailingBytes, 16},
		{"trailing byte not yet arrived", unhex("10 00 2f 09 6c6f63616c686f7374 63dd 01"), 0, ErrTrailingBytes, 16},
		{"host longer than frame", unhex("05 00 2f 09 6c6f"), 0, ErrTruncated, 4},
		{"frame ends in port", unhex("0d 00 2f 09 6c6f63616c686f7374 63"), 0, ErrTruncated, 13},
		{"host of 766 bytes", unhex("ff05 00 2f fe05"), 0, ErrHostTooLong, 4},
		{"host of 256 characters", frameOf(unhex("00 2f"), hostField(strings.Repeat("a", 256)), unhex("63dd 01")), 0, ErrHostTooLong, 4},
		{"host of 256 UTF-16 units", frameOf(unhex("00 2f"), hostField(strings.Repeat("😀", 128)), unhex("63dd 01")), 0, ErrHostTooLong, 4},
		{"host not UTF-8", frameOf(unhex("00 2f 02 c328 63dd 01")), 0, ErrBadEncoding, 3},
		{"negative host length", frameOf(unhex("00 2f ffffffff0f 63dd 01")), 0, ErrMalformed, 3},
		{"padded protocol", unhex("10 00 af00 09 6c6f63616c686f7374 63dd 01"), 0, ErrVarIntNonCanonical, 2},
		{"padded frame length", unhex("8f00 00 2f"), 0, ErrVarIntNonCanonical, 0},
		{"over default limit", unhex("8108"), 0, ErrTooLarge, 0},
		{"over configured limit", handshake18, 14, ErrTooLarge, 0},
		{"HTTP request", []byte("GET "), 0, ErrPacketID, 1},
		{"TLS ClientHello", unhex("16 03 01 02 00"), 0, ErrPacketID, 1},
		{"PROXY v1", []byte("PROXY TCP4"), 0, ErrPacketID, 1},
	}
	for _, tc := range cases {
		_, n, err := ParseHandshake(tc.wire, tc.maxBody)
		var pe *ProtocolError
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) || n != 0 {
			t.Errorf("%s: n %d, %v; want %v", tc.name, n, err, tc.want)
			continue
		}
		if pe.Offset != tc.offset || pe.Layer != "handshake" {
			t.Errorf("%s: %v; want offset %d", tc.name, err, tc.offset)
		}
	}
}

func TestErrorAndStateText(t *testing.T) {
	_, _, err := ParseHandshake([]byte("GET "), 0)
	if want := "handshake: at byte 1: unexpected packet id"; err == nil || err.Error() != want {
		t.Errorf("error text %q, want %q", err, want)
	}
	hello := &HelloError{Err: err}
	if want := "bad handshake: handshake: at byte 1: unexpected packet id"; hello.Error() != want || !errors.Is(hello, ErrPacketID) {
		t.Errorf("HelloError %q (wraps ErrPacketID: %v), want %q", hello, errors.Is(hello, ErrPacketID), want)
	}
	for state, want := range map[NextState]string{NextStatus: "status", NextLogin: "login", NextTransfer: "transfer", 0: "invalid"} {
		if state.String() != want {
			t.Errorf("NextState(%d) = %q, want %q", state, state.String(), want)
		}
	}
}

func TestReadHelloAcrossReads(t *testing.T) {
	status := unhex("01 00")
	r := bufio.NewReader(&testutil.ChunkReader{Chunks: [][]byte{
		handshake18[:3], handshake18[3:10], append(bytes.Clone(handshake18[10:]), status...),
	}})
	hello, err := ReadHello(r, 0)
	if err != nil || hello.Legacy != nil || !bytes.Equal(hello.Handshake.Raw, handshake18) {
		t.Fatalf("ReadHello = %+v, %v", hello, err)
	}
	if p, err := ReadStatusPacket(r); err != nil || p.Ping {
		t.Fatalf("ReadStatusPacket after hello = %+v, %v", p, err)
	}
}

func TestReadHelloErrors(t *testing.T) {
	r := bufio.NewReader(&testutil.ChunkReader{Chunks: [][]byte{handshake18[:5]}})
	if _, err := ReadHello(r, 0); err == nil || err.Error() != "unexpected EOF" {
		t.Errorf("ReadHello of a cut handshake: %v, want unexpected EOF", err)
	}
	r = bufio.NewReader(&testutil.ChunkReader{})
	if _, err := ReadHello(r, 0); err == nil || err.Error() != "EOF" {
		t.Errorf("ReadHello of nothing: %v, want EOF", err)
	}
	// A limit above the reader's buffer turns into ErrTooLarge, not a hang.
	big := frameOf(unhex("00 2f"), hostField(strings.Repeat("語", 255)), unhex("63dd 02"))
	r = bufio.NewReaderSize(&testutil.ChunkReader{Chunks: [][]byte{big}}, 16)
	if _, err := ReadHello(r, 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadHello over a small buffer: %v, want ErrTooLarge", err)
	}
}

func FuzzHandshake(f *testing.F) {
	f.Add(handshake18, 0)
	f.Add(handshake120FML, 0)
	f.Add(append(bytes.Clone(handshake18), 0x01, 0x00), 0)
	f.Add(legacyPing16, 0)
	f.Add([]byte{0xfe}, 0)
	f.Add([]byte{0xfe, 0x01}, 0)
	f.Add(unhex("fe01 00"), 300)
	f.Add([]byte("GET / HTTP/1.1\r\n"), 0)
	f.Add(unhex("ff05 00 2f fe05"), 2000)
	f.Fuzz(func(t *testing.T, in []byte, maxBody int) {
		hello, n, err := ParseHello(in, maxBody)
		testutil.CheckParseResult(t, in, n, err, ErrNeedMore, protocolOffset)
		if err != nil {
			return
		}
		if hello.Legacy != nil {
			checkLegacyPing(t, in[:n], *hello.Legacy)
			return
		}
		h := hello.Handshake
		if !bytes.Equal(h.Raw, in[:n]) {
			t.Fatalf("Raw % x is not the consumed input % x", h.Raw, in[:n])
		}
		if strings.IndexByte(h.Host, 0) >= 0 || h.HostSuffix != "" && h.HostSuffix[0] != 0 {
			t.Fatalf("host %q / suffix %q not split at the first NUL", h.Host, h.HostSuffix)
		}
		if got := h.AppendFrame(nil, h.Host); !bytes.Equal(got, h.Raw) {
			t.Fatalf("AppendFrame = % x, want the original % x", got, h.Raw)
		}
		testutil.CheckPrefixesNeedMore(t, in[:n], func(b []byte) (Handshake, int, error) { return ParseHandshake(b, maxBody) }, ErrNeedMore)
	})
}
