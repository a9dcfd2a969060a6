package mc

import (
	"encoding/binary"
	"strings"
)

// The handshake is the first frame of every modern (1.7+) connection:
//
//	length      VarInt   body size, at most the configured limit
//	packet id   VarInt   0x00
//	protocol    VarInt   any value; snapshots use 0x40000000 | n
//	address     String   VarInt byte length + UTF-8, <= 255 UTF-16 units
//	port        uint16   big-endian
//	next state  VarInt   1 status, 2 login, 3 transfer (1.20.5+)
//
// e.g. a 1.8 client pinging localhost:25565:
//
//	0f 00 2f 09 6c 6f 63 61 6c 68 6f 73 74 63 dd 01
//	|  |  |  |  l  o  c  a  l  h  o  s  t  |     next state 1
//	|  |  |  address length 9              port 25565
//	|  |  protocol 47
//	|  packet id 0
//	body length 15
//
// The address limit is vanilla's readUtf(255): at most 255*3 = 765 bytes on
// the wire (checked before the bytes arrive), valid UTF-8, and at most 255
// UTF-16 code units once decoded, so a character outside the BMP counts
// twice. Vanilla replaces invalid UTF-8; we refuse it, since no real client
// sends it. With the packet id, a 5-byte protocol, a 2-byte length, the port
// and the state, a vanilla handshake body is at most 776 bytes.
//
// Modded clients append data after a NUL: "host\x00FML\x00" (Forge 1.7-1.12),
// "\x00FML2\x00" (1.13-1.17), "\x00FML3\x00" (1.18+). Host holds the part
// before the first NUL, for routing; HostSuffix keeps the rest, so a backend
// that needs the marker still gets it when the host is rewritten.

const (
	// MaxHostChars is vanilla's limit on the server address, in UTF-16 units.
	MaxHostChars = 255
	// maxHostBytes is that limit in UTF-8 bytes: 3 per BMP character.
	maxHostBytes = 3 * MaxHostChars
	// DefaultMaxHandshakeFrame bounds the handshake body by default; it is
	// above the 776 bytes a vanilla handshake can reach.
	DefaultMaxHandshakeFrame = 1024
)

// NextState is what the client wants after the handshake.
type NextState int32

const (
	NextStatus   NextState = 1 // server-list ping
	NextLogin    NextState = 2 // join
	NextTransfer NextState = 3 // join after a transfer from another server (1.20.5+)
)

func (s NextState) String() string {
	switch s {
	case NextStatus:
		return "status"
	case NextLogin:
		return "login"
	case NextTransfer:
		return "transfer"
	}
	return "invalid"
}

// Handshake is a parsed handshake frame.
type Handshake struct {
	Protocol   int32  // protocol version, passed on as is
	Host       string // address before the first NUL: what routing matches
	HostSuffix string // from the first NUL on, e.g. "\x00FML3\x00"; "" if none
	Port       uint16
	NextState  NextState
	Raw        []byte // the exact frame bytes, length prefix included
}

// ParseHandshake parses the handshake frame at the start of b, whose body may
// be at most maxBody bytes (DefaultMaxHandshakeFrame when maxBody <= 0). It
// returns the handshake and the number of bytes it used; Raw aliases b.
// ErrNeedMore is returned only while every byte so far is valid, so garbage
// is refused early. It does not recognise the legacy 0xFE ping; ParseHello
// does.
func ParseHandshake(b []byte, maxBody int) (Handshake, int, error) {
	if maxBody <= 0 {
		maxBody = DefaultMaxHandshakeFrame
	}
	start, size, err := frameHead(b, maxBody, "handshake")
	if err != nil {
		return Handshake{}, 0, err
	}
	c := newCursor(b, start, size, "handshake")
	h := readHandshakeBody(c)
	if c.err != nil {
		return Handshake{}, 0, c.err
	}
	h.Raw = b[:start+size]
	return h, start + size, nil
}

func readHandshakeBody(c *cursor) Handshake {
	c.packetID(0)
	var h Handshake
	h.Protocol = c.varInt()
	h.Host, h.HostSuffix = splitHost(c)
	h.Port = c.uint16()
	at := c.pos
	h.NextState = NextState(c.varInt())
	if c.err == nil && (h.NextState < NextStatus || h.NextState > NextTransfer) {
		c.failAt(at, ErrNextState)
	}
	c.end()
	return h
}

// splitHost reads the address string and splits it at the first NUL.
func splitHost(c *cursor) (host, suffix string) {
	start := c.pos
	s := c.utf8String(maxHostBytes, ErrHostTooLong)
	if c.err == nil && utf16Len(s) > MaxHostChars {
		c.failAt(start, ErrHostTooLong)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// AppendFrame appends the handshake as a frame with host in place of Host,
// keeping HostSuffix. With host == h.Host it reproduces Raw byte for byte.
// It does not check host; the caller keeps it within MaxHostChars.
func (h Handshake) AppendFrame(dst []byte, host string) []byte {
	start := len(dst)
	dst = append(dst, 0x00)
	dst = AppendVarInt(dst, h.Protocol)
	dst = AppendVarInt(dst, int32(len(host)+len(h.HostSuffix)))
	dst = append(dst, host...)
	dst = append(dst, h.HostSuffix...)
	dst = binary.BigEndian.AppendUint16(dst, h.Port)
	dst = AppendVarInt(dst, int32(h.NextState))
	return prefixLength(dst, start)
}
