package clientaddr

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/moonbridge/moonbridge/mc"
)

// Version 1 is one line of printable US-ASCII: "PROXY", then fields each
// after exactly one space, then CRLF, in at most 107 bytes. Addresses are
// in canonical form (no leading zeros in IPv4, no zones) and ports decimal
// without leading zeros. A lone CR or LF, a missing CRLF within 107 bytes or
// any other deviation is refused: the spec asks receivers to abort.

const (
	v1Prefix  = "PROXY "
	maxV1Line = 107 // "PROXY UNKNOWN", two full IPv6 addresses, two ports, CRLF
)

func parseV1(b []byte) (Header, int, error) {
	line, n, err := v1Line(b)
	if err != nil {
		return Header{}, 0, err
	}
	fields := strings.Split(string(line), " ")
	h := Header{Version: 1, Command: Relayed}
	switch {
	case len(fields) >= 2 && fields[1] == "UNKNOWN":
		return h, n, nil // the spec says to ignore the rest of the line
	case len(fields) != 6 || fields[1] != "TCP4" && fields[1] != "TCP6":
		return Header{}, 0, protocolError("proxy v1", 0, mc.ErrMalformed)
	}
	var srcOK, dstOK bool
	h.Source, srcOK = v1AddrPort(fields[1], fields[2], fields[4])
	h.Destination, dstOK = v1AddrPort(fields[1], fields[3], fields[5])
	if !srcOK || !dstOK {
		return Header{}, 0, protocolError("proxy v1", len(v1Prefix), ErrAddress)
	}
	return h, n, nil
}

// v1Line finds the line, without its CRLF, and the bytes it takes. A
// CR at the last of the 107 bytes would leave the LF outside, so the scan
// stops one byte short of the limit.
func v1Line(b []byte) ([]byte, int, error) {
	scan := min(len(b), maxV1Line-1)
	for i, c := range b[:scan] {
		switch {
		case c == '\r' && i+1 == len(b):
			return nil, 0, mc.ErrNeedMore
		case c == '\r' && b[i+1] == '\n':
			return b[:i], i + 2, nil
		case c < 0x20 || c > 0x7e:
			return nil, 0, protocolError("proxy v1", i, mc.ErrMalformed)
		}
	}
	if scan == maxV1Line-1 {
		return nil, 0, protocolError("proxy v1", scan, mc.ErrTooLarge)
	}
	return nil, 0, mc.ErrNeedMore
}

// v1AddrPort parses one address and port of the family's kind.
func v1AddrPort(family, addr, port string) (netip.AddrPort, bool) {
	a, err := netip.ParseAddr(addr)
	p, portOK := parseDecimalPort(port)
	ok := err == nil && portOK && a.Zone() == "" &&
		(family == "TCP4" && a.Is4() || family == "TCP6" && a.Is6())
	return netip.AddrPortFrom(a, p), ok
}

// parseDecimalPort accepts 0 to 65535 written without sign or leading zeros.
func parseDecimalPort(s string) (uint16, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 16)
	return uint16(v), err == nil
}

func appendV1(dst []byte, h Header) []byte {
	src, dest, v4, ok := h.addrs()
	if !ok {
		return append(dst, "PROXY UNKNOWN\r\n"...)
	}
	family := "TCP6 "
	if v4 {
		family = "TCP4 "
	}
	dst = append(append(dst, v1Prefix...), family...)
	dst = append(src.Addr().AppendTo(dst), ' ')
	dst = append(dest.Addr().AppendTo(dst), ' ')
	dst = append(strconv.AppendUint(dst, uint64(src.Port()), 10), ' ')
	dst = strconv.AppendUint(dst, uint64(dest.Port()), 10)
	return append(dst, "\r\n"...)
}
