package mc

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

var varIntCases = []struct {
	value int32
	wire  []byte
}{
	{0, []byte{0x00}},
	{1, []byte{0x01}},
	{127, []byte{0x7f}},
	{128, []byte{0x80, 0x01}},
	{255, []byte{0xff, 0x01}},
	{300, []byte{0xac, 0x02}},
	{25565, []byte{0xdd, 0xc7, 0x01}},
	{MaxFrameLen, []byte{0xff, 0xff, 0x7f}},
	{math.MaxInt32, []byte{0xff, 0xff, 0xff, 0xff, 0x07}},
	{-1, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
	{math.MinInt32, []byte{0x80, 0x80, 0x80, 0x80, 0x08}},
}

func TestVarIntWire(t *testing.T) {
	for _, tc := range varIntCases {
		if got := AppendVarInt(nil, tc.value); !bytes.Equal(got, tc.wire) {
			t.Errorf("AppendVarInt(%d) = % x, want % x", tc.value, got, tc.wire)
		}
		if got := VarIntLen(tc.value); got != len(tc.wire) {
			t.Errorf("VarIntLen(%d) = %d, want %d", tc.value, got, len(tc.wire))
		}
		in := append(bytes.Clone(tc.wire), 0xaa) // a following byte is not read
		v, n, err := ReadVarInt(in)
		if err != nil || v != tc.value || n != len(tc.wire) {
			t.Errorf("ReadVarInt(% x) = %d, %d, %v; want %d, %d", in, v, n, err, tc.value, len(tc.wire))
		}
	}
}

func TestVarIntBad(t *testing.T) {
	cases := []struct {
		wire []byte
		want error
	}{
		{nil, ErrNeedMore},
		{[]byte{0x80}, ErrNeedMore},
		{[]byte{0xff, 0xff, 0xff, 0xff}, ErrNeedMore},
		{[]byte{0x80, 0x00}, ErrVarIntNonCanonical},                    // 0 padded
		{[]byte{0xff, 0x80, 0x00}, ErrVarIntNonCanonical},              // 127 padded
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x00}, ErrVarIntNonCanonical},  // 0 in 5 bytes
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x1f}, ErrVarIntTooLong},       // 33 bits
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, ErrVarIntTooLong},       // 35 bits
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, ErrVarIntTooLong}, // 6 bytes
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ErrVarIntTooLong},
	}
	for _, tc := range cases {
		_, n, err := ReadVarInt(tc.wire)
		if !errors.Is(err, tc.want) || n != 0 {
			t.Errorf("ReadVarInt(% x) = n %d, %v; want %v", tc.wire, n, err, tc.want)
		}
		var pe *ProtocolError
		if tc.want != ErrNeedMore && !errors.As(err, &pe) {
			t.Errorf("ReadVarInt(% x) error %T is not a *ProtocolError", tc.wire, err)
		}
	}
}

func TestVarIntRoundTripAll32BitPatterns(t *testing.T) {
	// Every bit width and its neighbours, both signs.
	for shift := range 32 {
		for _, d := range []int64{-1, 0, 1} {
			v := int32(int64(1)<<shift + d)
			for _, x := range []int32{v, -v} {
				buf := AppendVarInt(make([]byte, 0, MaxVarIntLen), x)
				got, n, err := ReadVarInt(buf)
				if err != nil || got != x || n != len(buf) || n != VarIntLen(x) {
					t.Fatalf("round trip %d: % x -> %d, %d, %v", x, buf, got, n, err)
				}
			}
		}
	}
}

func TestAppendVarIntZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() { buf = AppendVarInt(buf[:0], -1) })
	if allocs != 0 {
		t.Errorf("AppendVarInt allocated %v times", allocs)
	}
}

func TestReadFrame(t *testing.T) {
	cases := []struct {
		name    string
		wire    []byte
		max     int
		body    []byte
		n       int
		wantErr error
	}{
		{"empty body", []byte{0x00, 0xaa}, 10, []byte{}, 1, nil},
		{"status request", []byte{0x01, 0x00}, 10, []byte{0x00}, 2, nil},
		{"partial body", []byte{0x03, 0x00, 0x01}, 10, nil, 0, ErrNeedMore},
		{"partial length", []byte{0x80}, 1000, nil, 0, ErrNeedMore},
		{"over limit", []byte{0x0b}, 10, nil, 0, ErrTooLarge},
		// 1000 needs two bytes; a third length byte can only mean more.
		{"length wider than limit", []byte{0x80, 0x80}, 1000, nil, 0, ErrTooLarge},
		{"length wider than vanilla", []byte{0x80, 0x80, 0x80}, MaxFrameLen, nil, 0, ErrTooLarge},
		{"padded length", []byte{0x81, 0x00, 0x00}, 10, nil, 0, ErrVarIntNonCanonical},
	}
	for _, tc := range cases {
		body, n, err := ReadFrame(tc.wire, tc.max)
		if !errors.Is(err, tc.wantErr) || n != tc.n || !bytes.Equal(body, tc.body) {
			t.Errorf("%s: ReadFrame(% x) = % x, %d, %v; want % x, %d, %v", tc.name, tc.wire, body, n, err, tc.body, tc.n, tc.wantErr)
		}
	}
}

func FuzzVarInt(f *testing.F) {
	for _, tc := range varIntCases {
		f.Add(tc.wire, tc.value)
	}
	f.Add([]byte{0x80, 0x00}, int32(0))
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, int32(0))
	f.Fuzz(func(t *testing.T, wire []byte, value int32) {
		v, n, err := ReadVarInt(wire)
		switch {
		case err == nil:
			// Canonical: what was read re-encodes to the same bytes.
			if n < 1 || n > MaxVarIntLen || n > len(wire) || !bytes.Equal(AppendVarInt(nil, v), wire[:n]) {
				t.Fatalf("ReadVarInt(% x) = %d, %d: not canonical", wire, v, n)
			}
		case err == ErrNeedMore:
			if len(wire) >= MaxVarIntLen {
				t.Fatalf("ReadVarInt(% x) needs more after %d bytes", wire, len(wire))
			}
		default:
			var pe *ProtocolError
			if !errors.As(err, &pe) || n != 0 {
				t.Fatalf("ReadVarInt(% x): n %d, %v", wire, n, err)
			}
		}
		enc := AppendVarInt(nil, value)
		got, n, err := ReadVarInt(enc)
		if err != nil || got != value || n != len(enc) || n != VarIntLen(value) {
			t.Fatalf("round trip %d: % x -> %d, %d, %v", value, enc, got, n, err)
		}
		for k := range len(enc) {
			if _, _, err := ReadVarInt(enc[:k]); err != ErrNeedMore {
				t.Fatalf("prefix % x of %d: %v, want ErrNeedMore", enc[:k], value, err)
			}
		}
	})
}
