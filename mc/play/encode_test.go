package play

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/moonbridge/moonbridge/mc"
)

// trackerIn returns a tracker of protocol in state with compression at threshold (-1: off).
func trackerIn(t *testing.T, protocol int32, state State, threshold int) *Tracker {
	t.Helper()
	tr, err := NewTracker(protocol)
	if err != nil {
		t.Fatal(err)
	}
	if threshold >= 0 {
		feedAll(t, tr, frame(packet{mc.SetCompressionID, varInts(int32(threshold))}, -1))
	}
	feedAll(t, tr, frame(packet{mc.LoginSuccessID, nil}, threshold))
	if state == Play {
		feedAll(t, tr, frame(packet{tr.ids.Configuration.Switch, nil}, threshold))
	}
	if tr.State() != state || !tr.Movable() {
		t.Fatalf("tracker in %v, movable %v; want %v", tr.State(), tr.Movable(), state)
	}
	return tr
}

// decodeFrame splits the one frame of b into packet id and fields, as a client of the tracker's
// compression reads it, and checks that a tracker in the same state reads it as one frame.
func decodeFrame(t *testing.T, tr *Tracker, b []byte) (int32, []byte) {
	t.Helper()
	body, n, err := mc.ReadFrame(b, mc.MaxFrameLen)
	if err != nil || n != len(b) {
		t.Fatalf("ReadFrame(% x) = %d, %v; want one frame of %d bytes", b, n, err, len(b))
	}
	if tr.Threshold() >= 0 {
		if body[0] != 0 {
			t.Fatalf("data length %d, want 0 (not compressed)", body[0])
		}
		body = body[1:]
	}
	id, fields, err := mc.PacketID(body)
	if err != nil {
		t.Fatal(err)
	}
	reader := *tr
	reader.head = nil
	if _, err := reader.Feed(b, false); err != nil || reader.inBody {
		t.Fatalf("a tracker reads % x as %v, in a frame %v", b, err, reader.inBody)
	}
	return id, fields
}

func readString(t *testing.T, b []byte) (string, []byte) {
	t.Helper()
	size, n, err := mc.ReadVarInt(b)
	if err != nil || int(size) > len(b)-n {
		t.Fatalf("string at % x: %v", b, err)
	}
	return string(b[n : n+int(size)]), b[n+int(size):]
}

func TestAppendTransfer(t *testing.T) {
	for _, tc := range []struct {
		protocol  int32
		state     State
		threshold int
		id        int32
	}{
		{766, Configuration, -1, 0x0B},
		{766, Play, -1, 0x73},
		{766, Play, 256, 0x73},
		{768, Play, 0, 0x7A},
		{775, Play, 256, 0x81}, // a two-byte id
		{775, Configuration, 0, 0x0B},
	} {
		tr := trackerIn(t, tc.protocol, tc.state, tc.threshold)
		host := "lobby-2.example.net"
		b := tr.AppendTransfer([]byte("kept"), host, 25566)
		if !bytes.HasPrefix(b, []byte("kept")) {
			t.Fatalf("dst not kept: % x", b)
		}
		id, fields := decodeFrame(t, tr, b[4:])
		gotHost, rest := readString(t, fields)
		port, n, err := mc.ReadVarInt(rest)
		if id != tc.id || gotHost != host || err != nil || port != 25566 || n != len(rest) {
			t.Errorf("%+v: id 0x%02x, host %q, port %d (%v, %d left); want 0x%02x", tc, id, gotHost, port, err, len(rest)-n, tc.id)
		}
		feedAll(t, tr, b[4:])
		if !tr.Ended() {
			t.Errorf("%+v: a tracker fed the Transfer has not ended", tc)
		}
	}
}

func TestAppendStoreCookie(t *testing.T) {
	for _, tc := range []struct {
		state     State
		threshold int
		id        int32
		payload   []byte
	}{
		{Configuration, -1, 0x0A, []byte("token")},
		{Play, 256, 0x6B, noise(MaxCookiePayload)}, // above the threshold, still sent uncompressed
		{Play, -1, 0x6B, nil},
	} {
		tr := trackerIn(t, FirstProtocol, tc.state, tc.threshold)
		b := tr.AppendStoreCookie(nil, "moonbridge:transfer", tc.payload)
		id, fields := decodeFrame(t, tr, b)
		key, rest := readString(t, fields)
		payload, rest := readString(t, rest)
		if id != tc.id || key != "moonbridge:transfer" || payload != string(tc.payload) || len(rest) != 0 {
			t.Errorf("%v: id 0x%02x, key %q, %d payload bytes, %d left", tc.state, id, key, len(payload), len(rest))
		}
		if !tr.Movable() {
			t.Errorf("%v: a tracker fed the Store Cookie is not movable", tc.state)
		}
	}
}

// decodeMUTF8 reads Java's modified UTF-8.
func decodeMUTF8(t *testing.T, b []byte) string {
	t.Helper()
	var units []uint16
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80 && c != 0:
			units, i = append(units, uint16(c)), i+1
		case c&0xe0 == 0xc0 && i+1 < len(b):
			units, i = append(units, uint16(c&0x1f)<<6|uint16(b[i+1]&0x3f)), i+2
		case c&0xf0 == 0xe0 && i+2 < len(b):
			units, i = append(units, uint16(c&0x0f)<<12|uint16(b[i+1]&0x3f)<<6|uint16(b[i+2]&0x3f)), i+3
		default:
			t.Fatalf("not modified UTF-8 at %d: % x", i, b)
		}
	}
	return string(utf16.Decode(units))
}

func TestAppendDisconnect(t *testing.T) {
	for _, tc := range []struct {
		state  State
		id     int32
		reason string
		wire   []byte // the String tag's bytes after its length, when short
	}{
		{Configuration, 0x02, "Server closing", []byte("Server closing")},
		{Play, 0x1D, "a\x00é€😀", []byte{'a', 0xc0, 0x80, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80}},
		{Play, 0x1D, "", []byte{}},
		{Play, 0x1D, strings.Repeat("€", 30000), nil}, // 90000 bytes: cut to 21845 characters
	} {
		tr := trackerIn(t, FirstProtocol, tc.state, 64)
		id, fields := decodeFrame(t, tr, tr.AppendDisconnect(nil, tc.reason))
		if id != tc.id || len(fields) < 3 || fields[0] != 0x08 || int(binary.BigEndian.Uint16(fields[1:])) != len(fields)-3 {
			t.Fatalf("%v: id 0x%02x, fields % x", tc.state, id, fields[:min(len(fields), 8)])
		}
		text := fields[3:]
		if tc.wire != nil && !bytes.Equal(text, tc.wire) {
			t.Errorf("%q: % x, want % x", tc.reason, text, tc.wire)
		}
		if got := decodeMUTF8(t, text); !strings.HasPrefix(tc.reason, got) || len(text) > maxNBTString ||
			len(got) < len(tc.reason) && len(text)+3 <= maxNBTString {
			t.Errorf("%d-byte reason decodes to %d bytes (%d on the wire)", len(tc.reason), len(got), len(text))
		}
	}
}

func TestEncodersOutsideConfigurationAndPlay(t *testing.T) {
	tr := newTracker(t)
	dst := []byte{1}
	if got := tr.AppendTransfer(dst, "h", 1); !bytes.Equal(got, dst) {
		t.Errorf("AppendTransfer in login = % x", got)
	}
	if got := tr.AppendStoreCookie(dst, "a:b", nil); !bytes.Equal(got, dst) {
		t.Errorf("AppendStoreCookie in login = % x", got)
	}
	if got := tr.AppendDisconnect(dst, "x"); !bytes.Equal(got, dst) {
		t.Errorf("AppendDisconnect in login = % x", got)
	}
}

func TestCookieRequestAndResponse(t *testing.T) {
	b := AppendCookieRequest(nil, "moonbridge:transfer")
	body, n, err := mc.ReadFrame(b, mc.MaxFrameLen)
	if err != nil || n != len(b) {
		t.Fatal(err)
	}
	id, fields, _ := mc.PacketID(body)
	if key, rest := readString(t, fields); id != 0x05 || key != "moonbridge:transfer" || len(rest) != 0 {
		t.Errorf("cookie request: id 0x%02x, key %q, %d left", id, key, len(rest))
	}

	key := mc.AppendString(nil, "moonbridge:transfer")
	for _, tc := range []struct {
		name    string
		body    []byte
		present bool
		payload []byte
		err     error
	}{
		{"absent", append(bytes.Clone(key), 0), false, nil, nil},
		{"present", append(append(bytes.Clone(key), 1), mc.AppendString(nil, "tok")...), true, []byte("tok"), nil},
		{"empty payload", append(bytes.Clone(key), 1, 0), true, []byte{}, nil},
		{"largest payload", append(append(bytes.Clone(key), 1), appendBytes(nil, make([]byte, MaxCookiePayload))...), true, make([]byte, MaxCookiePayload), nil},
		{"payload too large", append(append(bytes.Clone(key), 1), appendBytes(nil, make([]byte, MaxCookiePayload+1))...), false, nil, ErrCookieTooLarge},
		{"payload cut", append(bytes.Clone(key), 1, 5, 'a'), false, nil, mc.ErrTruncated},
		{"negative payload length", append(bytes.Clone(key), 1, 0xff, 0xff, 0xff, 0xff, 0x0f), false, nil, mc.ErrMalformed},
		{"bad bool", append(bytes.Clone(key), 2), false, nil, mc.ErrMalformed},
		{"no bool", bytes.Clone(key), false, nil, mc.ErrTruncated},
		{"trailing", append(bytes.Clone(key), 0, 0), false, nil, mc.ErrTrailingBytes},
		{"bad key", append(mc.AppendString(nil, "Moon:X"), 0), false, nil, ErrBadCookieKey},
		{"key too long", append(mc.AppendString(nil, strings.Repeat("a", maxStringChars+1)), 0), false, nil, mc.ErrTooLarge},
		{"padded varint", []byte{0x80, 0x00}, false, nil, mc.ErrVarIntNonCanonical},
		{"empty", nil, false, nil, mc.ErrTruncated},
	} {
		k, payload, present, err := ParseCookieResponse(tc.body)
		var pe *mc.ProtocolError
		switch {
		case tc.err != nil && (!errors.Is(err, tc.err) || !errors.As(err, &pe)):
			t.Errorf("%s: err %v, want %v in a *mc.ProtocolError", tc.name, err, tc.err)
		case tc.err == nil && (err != nil || k != "moonbridge:transfer" || present != tc.present || !bytes.Equal(payload, tc.payload)):
			t.Errorf("%s: %q, %d bytes, %v, %v", tc.name, k, len(payload), present, err)
		}
	}
}

func TestCheckTransferTarget(t *testing.T) {
	for _, tc := range []struct {
		host string
		port uint16
		want error
	}{
		{"lobby.example.net", 25565, nil},
		{"2001:db8::1", 1, nil},
		{strings.Repeat("😀", maxStringChars/2), 25565, nil}, // 32766 UTF-16 units, 65532 bytes
		{strings.Repeat("a", maxStringChars), 25565, nil},
		{strings.Repeat("a", maxStringChars+1), 25565, ErrBadHost},
		{strings.Repeat("😀", maxStringChars/2+1), 25565, ErrBadHost},
		{"", 25565, ErrBadHost},
		{"\xff", 25565, ErrBadHost},
		{"lobby", 0, ErrBadPort},
	} {
		if err := CheckTransferTarget(tc.host, tc.port); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("CheckTransferTarget(%.20q, %d) = %v, want %v", tc.host, tc.port, err, tc.want)
		}
	}
}

func TestCheckCookie(t *testing.T) {
	for _, tc := range []struct {
		key     string
		payload int
		want    error
	}{
		{"moonbridge:transfer", MaxCookiePayload, nil},
		{"transfer", 0, nil}, // namespace minecraft
		{"a-b.c_d:e/f.g", 1, nil},
		{"moonbridge:transfer", MaxCookiePayload + 1, ErrCookieTooLarge},
		{"Moonbridge:transfer", 1, ErrBadCookieKey},
		{"moon/bridge:transfer", 1, ErrBadCookieKey},
		{"moonbridge:", 1, ErrBadCookieKey},
		{"a:b:c", 1, ErrBadCookieKey},
		{"", 1, ErrBadCookieKey},
		{"a:" + strings.Repeat("b", maxStringChars), 1, ErrBadCookieKey},
	} {
		if err := CheckCookie(tc.key, make([]byte, tc.payload)); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("CheckCookie(%.20q, %d bytes) = %v, want %v", tc.key, tc.payload, err, tc.want)
		}
	}
}
