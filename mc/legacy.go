package mc

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
)

// Clients before 1.7 ping the server list without a handshake frame, and
// a modern server still answers them. The request comes in three forms:
//
//	FE                                      Beta 1.8 to 1.3
//	FE 01                                   1.4 and 1.5
//	FE 01 FA  00 0b  "MC|PingHost"          1.6: a plugin message whose
//	          (UTF-16BE, 22 bytes)          data is
//	          uint16 data length = 7 + 2*h
//	          uint8  protocol version       e.g. 78 for 1.6.4
//	          uint16 h, host in UTF-16BE (2*h bytes)
//	          int32  port
//
// A modern frame can start with FE too (a body of 254 bytes or more), so the
// first two forms are recognised the way vanilla does: by what arrived in
// the connection's first read. A modern client sends its whole handshake at
// once, and FE 01 FA cannot start a modern handshake, whose packet id is 0.
//
// The answer is a kick packet, FF, a uint16 length in UTF-16 units and the
// UTF-16BE text, in the form the client understands (AppendLegacyKick).

// LegacyPingForm is which pre-1.7 client sent a legacy ping.
type LegacyPingForm uint8

const (
	LegacyPingBeta LegacyPingForm = iota + 1 // FE alone: Beta 1.8 to 1.3
	LegacyPing14                             // FE 01: 1.4 and 1.5
	LegacyPing16                             // FE 01 FA + MC|PingHost: 1.6
)

// LegacyPing is a parsed pre-1.7 server-list ping.
type LegacyPing struct {
	Form     LegacyPingForm
	Protocol byte   // 1.6 only: the client's protocol, e.g. 78 for 1.6.4
	Host     string // 1.6 only: the address the client connected to
	Port     uint16 // 1.6 only
}

const (
	legacyPingChannel = "MC|PingHost"
	// maxLegacyPing16 bounds the 1.6 form: FE 01 FA, the channel name with
	// its length, the data length, protocol, host length, 255 host
	// characters and the port.
	maxLegacyPing16 = 3 + 2 + 2*len(legacyPingChannel) + 2 + 1 + 2 + 2*MaxHostChars + 4
	// maxLegacyKickChars is what pre-1.7 clients accept in a kick packet.
	maxLegacyKickChars = 256
)

// isLegacyPing reports whether b, the bytes of a connection's first read,
// are a legacy ping (or the start of a 1.6 one).
func isLegacyPing(b []byte) bool {
	return len(b) > 0 && b[0] == 0xfe &&
		(len(b) == 1 || b[1] == 0x01 && (len(b) == 2 || b[2] == 0xfa))
}

// parseLegacyPing parses b, for which isLegacyPing holds.
func parseLegacyPing(b []byte) (LegacyPing, int, error) {
	switch len(b) {
	case 1:
		return LegacyPing{Form: LegacyPingBeta}, 1, nil
	case 2:
		return LegacyPing{Form: LegacyPing14}, 2, nil
	}
	c := newCursor(b, 3, maxLegacyPing16-3, "legacy ping")
	p := readLegacyPing16(c)
	if c.err != nil {
		return LegacyPing{}, 0, c.err
	}
	return p, c.base + c.pos, nil
}

func readLegacyPing16(c *cursor) LegacyPing {
	at := c.pos
	if n := c.uint16(); c.err == nil && int(n) != len(legacyPingChannel) {
		c.failAt(at, ErrMalformed)
	}
	if name := c.take(2 * len(legacyPingChannel)); c.err == nil &&
		!bytes.Equal(name, appendUTF16BE(nil, legacyPingChannel)) {
		c.failAt(at, ErrMalformed)
	}
	p := LegacyPing{Form: LegacyPing16}
	dataAt := c.pos
	dataLen := c.uint16()
	p.Protocol = c.uint8()
	hostAt := c.pos
	hostLen := int(c.uint16())
	switch {
	case c.err != nil:
	case hostLen > MaxHostChars:
		c.failAt(hostAt, ErrHostTooLong)
	case int(dataLen) != 7+2*hostLen:
		c.failAt(dataAt, ErrMalformed)
	}
	p.Host = readUTF16BE(c, hostLen)
	portAt := c.pos
	port := c.int32()
	if c.err == nil && (port < 0 || port > 0xffff) {
		c.failAt(portAt, ErrMalformed)
	}
	p.Port = uint16(port)
	return p
}

// readUTF16BE reads n UTF-16BE code units, refusing unpaired surrogates.
func readUTF16BE(c *cursor, n int) string {
	at := c.pos
	b := c.take(2 * n)
	s, ok := decodeUTF16BE(b)
	if c.err == nil && !ok {
		c.failAt(at, ErrBadEncoding)
	}
	return s
}

// AppendLegacyKick appends the kick packet that answers a legacy ping, in
// the text format its form expects:
//
//	Beta 1.8-1.3:  motd "§" online "§" max      (§ codes removed from motd)
//	1.4 and later: "§1" NUL protocol NUL version NUL motd NUL online NUL max
//
// The client shows version in red unless s.Protocol equals its own (for 1.6,
// LegacyPing.Protocol). The MOTD is shortened so the text fits the 256
// characters these clients accept.
func AppendLegacyKick(dst []byte, form LegacyPingForm, s Status) []byte {
	text := legacyKickText(form, s)
	dst = append(dst, 0xff)
	dst = binary.BigEndian.AppendUint16(dst, uint16(utf16Len(text)))
	return appendUTF16BE(dst, text)
}

func legacyKickText(form LegacyPingForm, s Status) string {
	online, maxPlayers := strconv.Itoa(s.OnlinePlayers), strconv.Itoa(s.MaxPlayers)
	var before, motd, after string
	if form == LegacyPingBeta {
		motd, after = StripFormatting(s.MOTD), "§"+online+"§"+maxPlayers
	} else {
		noNUL := strings.NewReplacer("\x00", "")
		before = "§1\x00" + strconv.Itoa(int(s.Protocol)) + "\x00" + noNUL.Replace(s.VersionName) + "\x00"
		motd, after = noNUL.Replace(s.MOTD), "\x00"+online+"\x00"+maxPlayers
	}
	room := max(0, maxLegacyKickChars-utf16Len(before)-utf16Len(after))
	return truncateUTF16(before+truncateUTF16(motd, room)+after, maxLegacyKickChars)
}

// StripFormatting removes § formatting codes (a § and the character after it): in the Beta
// legacy form § separates fields, and the landing page shows plain text.
func StripFormatting(s string) string {
	var b strings.Builder
	skip := false
	for _, r := range s {
		switch {
		case skip:
			skip = false
		case r == '§':
			skip = true
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
