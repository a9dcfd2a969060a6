package modern

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"

	"github.com/moonbridge/moonbridge/mc"
)

// maxString is the longest string field read, in bytes: vanilla's 32767 characters, each up to
// three UTF-8 bytes.
const maxString = 3 * 32767

// fieldReader takes one packet's fields in order; the first fault sticks and every later read
// returns a zero value, so a parser reads all its fields and checks err once, at done.
type fieldReader struct {
	b      []byte
	state  string
	packet string
	err    error
}

func readFields(state, packet string, b []byte) *fieldReader {
	return &fieldReader{b: b, state: state, packet: packet}
}

func (f *fieldReader) fail(err error) {
	if f.err == nil {
		f.err = &ProtocolError{State: f.state, Packet: f.packet, Err: err}
	}
	f.b = nil
}

func (f *fieldReader) take(n int) []byte {
	if f.err != nil {
		return nil
	}
	if n < 0 || n > len(f.b) {
		f.fail(errTruncated)
		return nil
	}
	out := f.b[:n]
	f.b = f.b[n:]
	return out
}

func (f *fieldReader) varInt() int32 {
	if f.err != nil {
		return 0
	}
	v, n, err := mc.ReadVarInt(f.b)
	if err != nil {
		f.fail(fmt.Errorf("varint: %w", err))
		return 0
	}
	f.b = f.b[n:]
	return v
}

// length is a VarInt length prefix, at most limit.
func (f *fieldReader) length(limit int) int {
	n := f.varInt()
	if f.err == nil && (n < 0 || int(n) > limit) {
		f.fail(errBadLength)
	}
	return int(n)
}

func (f *fieldReader) string() string { return string(f.take(f.length(maxString))) }

// byteArray is a VarInt-prefixed byte array, copied out of the packet.
func (f *fieldReader) byteArray() []byte {
	return append([]byte{}, f.take(f.length(mc.MaxFrameLen))...)
}

func (f *fieldReader) bool() bool {
	b := f.take(1)
	if f.err == nil && b[0] > 1 {
		f.fail(fmt.Errorf("bool byte %#x", b[0]))
	}
	return f.err == nil && b[0] == 1
}

func (f *fieldReader) uint16() uint16 {
	if b := f.take(2); f.err == nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (f *fieldReader) int64() int64 {
	if b := f.take(8); f.err == nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (f *fieldReader) uuid() (u [16]byte) {
	copy(u[:], f.take(16))
	return u
}

// rest is the remaining bytes (a plugin message's data), copied.
func (f *fieldReader) rest() []byte { return append([]byte{}, f.take(len(f.b))...) }

// done is the first fault, or a fault for bytes left after the last field.
func (f *fieldReader) done() error {
	if f.err == nil && len(f.b) > 0 {
		f.fail(errTrailing)
	}
	return f.err
}

func appendByteArray(dst, b []byte) []byte {
	return append(mc.AppendVarInt(dst, int32(len(b))), b...)
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// OfflineUUID is vanilla's offline-mode player UUID: a version 3 UUID of "OfflinePlayer:"+name.
func OfflineUUID(name string) [16]byte {
	h := md5.Sum([]byte("OfflinePlayer:" + name))
	h[6] = h[6]&0x0f | 0x30
	h[8] = h[8]&0x3f | 0x80
	return h
}
