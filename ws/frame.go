package ws

import (
	"encoding/binary"
	"fmt"
	"math"
)

// OpCode is a frame's 4-bit opcode.
type OpCode byte

// The opcodes RFC 6455 defines; all others are reserved and refused.
const (
	OpContinuation OpCode = 0x0
	OpText         OpCode = 0x1
	OpBinary       OpCode = 0x2
	OpClose        OpCode = 0x8
	OpPing         OpCode = 0x9
	OpPong         OpCode = 0xA
)

// IsControl reports whether o is a control opcode (close, ping, pong and
// the reserved 0xB-0xF), which the RFC limits to 125 unfragmented bytes.
func (o OpCode) IsControl() bool { return o&0x8 != 0 }

func (o OpCode) isKnown() bool {
	switch o {
	case OpContinuation, OpText, OpBinary, OpClose, OpPing, OpPong:
		return true
	}
	return false
}

const (
	// MaxHeaderLen is the longest frame header: 2 bytes, a 64-bit length
	// and a masking key. Buffers passed to WriteBatch keep this much
	// headroom in front of the payload.
	MaxHeaderLen = 14
	// MaxControlPayload is the RFC's limit for close, ping and pong.
	MaxControlPayload = 125

	finBit     = 0x80
	rsvBits    = 0x70
	opcodeBits = 0x0F
	maskBit    = 0x80
	len7Bits   = 0x7F
	len16Code  = 126
	len64Code  = 127
)

// Header is a parsed frame header.
type Header struct {
	Fin    bool
	Rsv    byte // RSV1..RSV3 as the low three bits; always 0 here
	OpCode OpCode
	Masked bool
	// Mask is the masking key: the four wire bytes read as a little-endian
	// uint32, the form MaskBytes takes.
	Mask   uint32
	Length int64
}

// Size is the number of bytes PutHeader writes for h.
func (h Header) Size() int {
	n := 2
	switch {
	case h.Length > math.MaxUint16:
		n += 8
	case h.Length >= len16Code:
		n += 2
	}
	if h.Masked {
		n += 4
	}
	return n
}

// HeaderLen returns the full header length announced by a frame's first
// two bytes, so a reader knows how many bytes to gather before parsing.
func HeaderLen(b0, b1 byte) int {
	n := 2
	switch b1 & len7Bits {
	case len16Code:
		n += 2
	case len64Code:
		n += 8
	}
	if b1&maskBit != 0 {
		n += 4
	}
	return n
}

// PutHeader writes h into dst, which must hold at least h.Size() bytes, and
// returns the number of bytes written. It uses the shortest length form.
func PutHeader(dst []byte, h Header) int {
	b0 := byte(h.OpCode) | h.Rsv<<4&rsvBits
	if h.Fin {
		b0 |= finBit
	}
	var b1 byte
	if h.Masked {
		b1 = maskBit
	}
	n := 2
	switch {
	case h.Length > math.MaxUint16:
		b1 |= len64Code
		binary.BigEndian.PutUint64(dst[2:10], uint64(h.Length))
		n = 10
	case h.Length >= len16Code:
		b1 |= len16Code
		binary.BigEndian.PutUint16(dst[2:4], uint16(h.Length))
		n = 4
	default:
		b1 |= byte(h.Length)
	}
	dst[0], dst[1] = b0, b1
	if h.Masked {
		binary.LittleEndian.PutUint32(dst[n:n+4], h.Mask)
		n += 4
	}
	return n
}

// AppendHeader appends h's wire form to dst.
func AppendHeader(dst []byte, h Header) []byte {
	var b [MaxHeaderLen]byte
	n := PutHeader(b[:], h)
	return append(dst, b[:n]...)
}

// ParseHeader parses the frame header at the start of b and returns it with
// its length in bytes. It returns ErrShortHeader if b is shorter than the
// header, and a *ProtocolError (close code 1002) for reserved bits, unknown
// opcodes, fragmented or oversized control frames, non-minimal lengths and
// a 64-bit length with its top bit set.
func ParseHeader(b []byte) (Header, int, error) {
	if len(b) < 2 || len(b) < HeaderLen(b[0], b[1]) {
		return Header{}, 0, ErrShortHeader
	}
	h := Header{
		Fin:    b[0]&finBit != 0,
		Rsv:    b[0] & rsvBits >> 4,
		OpCode: OpCode(b[0] & opcodeBits),
		Masked: b[1]&maskBit != 0,
	}
	n, err := parseLength(b, &h)
	if err != nil {
		return Header{}, 0, err
	}
	if h.Masked {
		h.Mask = binary.LittleEndian.Uint32(b[n : n+4])
		n += 4
	}
	if err := checkHeader(h); err != nil {
		return Header{}, 0, err
	}
	return h, n, nil
}

// parseLength sets h.Length from b and returns where the length ended.
func parseLength(b []byte, h *Header) (int, error) {
	switch code := b[1] & len7Bits; code {
	case len16Code:
		l := binary.BigEndian.Uint16(b[2:4])
		if l < len16Code {
			return 0, protocolError(CloseProtocolError, "non-minimal 16-bit payload length")
		}
		h.Length = int64(l)
		return 4, nil
	case len64Code:
		l := binary.BigEndian.Uint64(b[2:10])
		if l > math.MaxInt64 {
			return 0, protocolError(CloseProtocolError, "64-bit payload length with the top bit set")
		}
		if l <= math.MaxUint16 {
			return 0, protocolError(CloseProtocolError, "non-minimal 64-bit payload length")
		}
		h.Length = int64(l)
		return 10, nil
	default:
		h.Length = int64(code)
		return 2, nil
	}
}

// checkHeader applies the RFC rules that hold for every frame regardless
// of the connection's state.
func checkHeader(h Header) error {
	switch {
	case h.Rsv != 0:
		return protocolError(CloseProtocolError, "reserved bits set without a negotiated extension")
	case !h.OpCode.isKnown():
		return protocolError(CloseProtocolError, fmt.Sprintf("unknown opcode 0x%X", byte(h.OpCode)))
	case h.OpCode.IsControl() && !h.Fin:
		return protocolError(CloseProtocolError, "fragmented control frame")
	case h.OpCode.IsControl() && h.Length > MaxControlPayload:
		return protocolError(CloseProtocolError, "control frame payload over 125 bytes")
	}
	return nil
}
