package ws

import (
	"bytes"
	"errors"
	"testing"
)

// Wire bytes from RFC 6455 section 5.7 and for each length form.
var headerTable = []struct {
	name string
	h    Header
	wire []byte
}{
	{"unmasked text Hello", Header{Fin: true, OpCode: OpText, Length: 5}, []byte{0x81, 0x05}},
	{"masked text Hello", Header{Fin: true, OpCode: OpText, Length: 5, Masked: true, Mask: testKey},
		[]byte{0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d}},
	{"first fragment", Header{OpCode: OpText, Length: 3}, []byte{0x01, 0x03}},
	{"last fragment", Header{Fin: true, OpCode: OpContinuation, Length: 2}, []byte{0x80, 0x02}},
	{"ping Hello", Header{Fin: true, OpCode: OpPing, Length: 5}, []byte{0x89, 0x05}},
	{"masked pong Hello", Header{Fin: true, OpCode: OpPong, Length: 5, Masked: true, Mask: testKey},
		[]byte{0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d}},
	{"close 1000", Header{Fin: true, OpCode: OpClose, Length: 2}, []byte{0x88, 0x02}},
	{"empty binary", Header{Fin: true, OpCode: OpBinary}, []byte{0x82, 0x00}},
	{"125 bytes, 7-bit", Header{Fin: true, OpCode: OpBinary, Length: 125}, []byte{0x82, 0x7d}},
	{"126 bytes, 16-bit", Header{Fin: true, OpCode: OpBinary, Length: 126}, []byte{0x82, 0x7e, 0x00, 0x7e}},
	{"256 bytes", Header{Fin: true, OpCode: OpBinary, Length: 256}, []byte{0x82, 0x7e, 0x01, 0x00}},
	{"65535 bytes", Header{Fin: true, OpCode: OpBinary, Length: 65535}, []byte{0x82, 0x7e, 0xff, 0xff}},
	{"65536 bytes, 64-bit", Header{Fin: true, OpCode: OpBinary, Length: 65536},
		[]byte{0x82, 0x7f, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00}},
	{"2^21-1 bytes masked", Header{Fin: true, OpCode: OpBinary, Length: 1<<21 - 1, Masked: true, Mask: 0x04030201},
		[]byte{0x82, 0xff, 0, 0, 0, 0, 0, 0x1f, 0xff, 0xff, 0x01, 0x02, 0x03, 0x04}},
	{"2^63-1 bytes", Header{Fin: true, OpCode: OpBinary, Length: 1<<63 - 1},
		[]byte{0x82, 0x7f, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
}

func TestHeaderWireBytes(t *testing.T) {
	for _, tc := range headerTable {
		if got := AppendHeader(nil, tc.h); !bytes.Equal(got, tc.wire) {
			t.Errorf("%s: AppendHeader = % x, want % x", tc.name, got, tc.wire)
		}
		if tc.h.Size() != len(tc.wire) {
			t.Errorf("%s: Size = %d, want %d", tc.name, tc.h.Size(), len(tc.wire))
		}
		if HeaderLen(tc.wire[0], tc.wire[1]) != len(tc.wire) {
			t.Errorf("%s: HeaderLen = %d, want %d", tc.name, HeaderLen(tc.wire[0], tc.wire[1]), len(tc.wire))
		}
		h, n, err := ParseHeader(append(tc.wire, 0xAA)) // a trailing payload byte is not header
		if err != nil || n != len(tc.wire) || h != tc.h {
			t.Errorf("%s: ParseHeader = %+v, %d, %v; want %+v, %d", tc.name, h, n, err, tc.h, len(tc.wire))
		}
		if _, _, err := ParseHeader(tc.wire[:len(tc.wire)-1]); !errors.Is(err, ErrShortHeader) {
			t.Errorf("%s: truncated header: err = %v, want ErrShortHeader", tc.name, err)
		}
	}
}

func TestMaskRFCExample(t *testing.T) {
	p := []byte("Hello")
	MaskBytes(testKey, 0, p)
	if want := []byte{0x7f, 0x9f, 0x4d, 0x51, 0x58}; !bytes.Equal(p, want) {
		t.Fatalf("masked Hello = % x, want % x", p, want)
	}
}

// Every header the RFC forbids, with the close code it must get.
var badHeaders = []struct {
	name string
	wire []byte
}{
	{"RSV1 set", []byte{0xc2, 0x80, 1, 2, 3, 4}},
	{"RSV2 set", []byte{0xa2, 0x80, 1, 2, 3, 4}},
	{"RSV3 set", []byte{0x92, 0x80, 1, 2, 3, 4}},
	{"opcode 0x3", []byte{0x83, 0x80, 1, 2, 3, 4}},
	{"opcode 0x7", []byte{0x87, 0x80, 1, 2, 3, 4}},
	{"opcode 0xB", []byte{0x8b, 0x80, 1, 2, 3, 4}},
	{"opcode 0xF", []byte{0x8f, 0x80, 1, 2, 3, 4}},
	{"fragmented ping", []byte{0x09, 0x80, 1, 2, 3, 4}},
	{"fragmented close", []byte{0x08, 0x80, 1, 2, 3, 4}},
	{"ping of 126 bytes", []byte{0x89, 0xfe, 0x00, 0x7e, 1, 2, 3, 4}},
	{"close of 126 bytes", []byte{0x88, 0xfe, 0x00, 0x7e, 1, 2, 3, 4}},
	{"16-bit length 125", []byte{0x82, 0xfe, 0x00, 0x7d, 1, 2, 3, 4}},
	{"16-bit length 0", []byte{0x82, 0xfe, 0x00, 0x00, 1, 2, 3, 4}},
	{"64-bit length 65535", []byte{0x82, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4}},
	{"64-bit length 5", []byte{0x82, 0xff, 0, 0, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4}},
	{"64-bit top bit", []byte{0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}},
	{"64-bit all ones", []byte{0x82, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4}},
}

func TestParseHeaderRejects(t *testing.T) {
	for _, tc := range badHeaders {
		_, _, err := ParseHeader(tc.wire)
		var pe *ProtocolError
		if !errors.As(err, &pe) || pe.Code != CloseProtocolError || pe.Reason == "" {
			t.Errorf("%s: err = %v, want a 1002 ProtocolError with a reason", tc.name, err)
		}
	}
}

func TestPutHeaderWritesNoMoreThanSize(t *testing.T) {
	for _, tc := range headerTable {
		buf := bytes.Repeat([]byte{0xEE}, MaxHeaderLen+1)
		n := PutHeader(buf, tc.h)
		if n != tc.h.Size() || !bytes.Equal(buf[n:], bytes.Repeat([]byte{0xEE}, len(buf)-n)) {
			t.Errorf("%s: PutHeader wrote past its %d bytes: % x", tc.name, n, buf)
		}
	}
}
