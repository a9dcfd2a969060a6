package clientaddr

import (
	"bufio"
	"bytes"
	"net/netip"

	"github.com/moonbridge/moonbridge/mc"
)

// DefaultMaxHeader bounds a v2 header by default: the largest address
// block (216 bytes for AF_UNIX) plus room for the TLVs load balancers add.
const DefaultMaxHeader = 1024

// Command says whether a header carries a relayed connection's
// addresses.
type Command uint8

const (
	Local   Command = iota // the sender's own connection, e.g. a health check
	Relayed                // relayed for a client
)

// Header is a decoded PROXY protocol header. Source and Destination
// are valid only for TCP over IPv4 or IPv6; otherwise (LOCAL, v1 UNKNOWN,
// v2 UNSPEC, UDP or UNIX) the connection's own endpoints stand.
type Header struct {
	Version     int // 1 (text) or 2 (binary)
	Command     Command
	Source      netip.AddrPort // the client
	Destination netip.AddrPort // the address the client connected to
	TLVs        []byte         // v2 PROXY only: raw TLVs after the addresses, checked for shape
}

// ParseHeader decodes the v1 or v2 header at the start of b and
// returns it with the number of bytes it used. maxHeader bounds a v2 header
// (DefaultMaxHeader when <= 0); a v1 line is bounded by the spec's 107
// bytes. ErrNotHeader (in a *mc.ProtocolError) means b does not start
// like either version, so the bytes belong to the next protocol. TLVs alias b.
func ParseHeader(b []byte, maxHeader int) (Header, int, error) {
	if maxHeader <= 0 {
		maxHeader = DefaultMaxHeader
	}
	switch {
	case startsLike(b, v2Signature):
		return parseV2(b, maxHeader)
	case startsLike(b, v1Prefix):
		return parseV1(b)
	}
	return Header{}, 0, protocolError("proxy", 0, ErrNotHeader)
}

// ReadHeader reads a v1 or v2 header from r; on ErrNotHeader
// nothing is consumed. The returned TLVs are the caller's own.
func ReadHeader(r *bufio.Reader, maxHeader int) (Header, error) {
	h, err := mc.ReadParsed(r, func(b []byte) (Header, int, error) { return ParseHeader(b, maxHeader) })
	h.TLVs = bytes.Clone(h.TLVs)
	return h, err
}

// Append appends h in its Version's encoding. Addresses of different
// families are both sent as IPv6; a header without valid addresses is sent
// as v1 UNKNOWN or v2 UNSPEC, and a LOCAL one carries no addresses or TLVs.
func (h Header) Append(dst []byte) ([]byte, error) {
	switch {
	case h.Command > Relayed:
	case h.Version == 1:
		return appendV1(dst, h), nil
	case h.Version == 2:
		return appendV2(dst, h)
	}
	return dst, protocolError("proxy", 0, ErrCommand)
}

// addrs returns h's addresses in one family, unmapped to IPv4 when both
// allow it, and whether there are any.
func (h Header) addrs() (src, dst netip.AddrPort, v4, ok bool) {
	if h.Command != Relayed || !h.Source.IsValid() || !h.Destination.IsValid() {
		return src, dst, false, false
	}
	s, d := h.Source.Addr().Unmap(), h.Destination.Addr().Unmap()
	if v4 = s.Is4() && d.Is4(); !v4 {
		s, d = as6(s), as6(d)
	}
	return netip.AddrPortFrom(s, h.Source.Port()), netip.AddrPortFrom(d, h.Destination.Port()), v4, true
}

func as6(a netip.Addr) netip.Addr { return netip.AddrFrom16(a.As16()) }

// startsLike reports whether b and prefix agree on their common length, so
// an empty or short b is a possible beginning.
func startsLike(b []byte, prefix string) bool {
	n := min(len(b), len(prefix))
	return string(b[:n]) == prefix[:n]
}

// StartsLikeHeader peeks at r for the v1 "PROXY " or the v2 signature's first bytes.
func StartsLikeHeader(r *bufio.Reader) bool {
	b, _ := r.Peek(5)
	return string(b) == "PROXY" || string(b) == "\r\n\r\n\x00"
}
