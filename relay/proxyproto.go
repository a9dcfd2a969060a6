package relay

import (
	"bufio"
	"bytes"
	"net/netip"

	"github.com/moonbridge/moonbridge/mc"
)

// The PROXY protocol (haproxy's proxy-protocol.txt) puts the real client's
// address in front of a connection's first bytes. Version 1 is a text line
// of at most 107 bytes, version 2 a binary header:
//
//	v1:  "PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n"
//	     "PROXY TCP6 <src> <dst> <sport> <dport>\r\n"
//	     "PROXY UNKNOWN[ anything]\r\n"          addresses unknown
//
//	v2:  0d 0a 0d 0a 00 0d 0a 51 55 49 54 0a    signature (12 bytes)
//	     21                                     version 2, command 1 PROXY
//	                                            (20 = LOCAL: no addresses)
//	     11                                     family TCP over IPv4
//	                                            (21 = TCP over IPv6)
//	     00 0c                                  length of what follows
//	     c0 a8 00 01  c0 a8 00 0b  dc 04  01 bb source, destination, ports
//	     [TLVs: type, uint16 length, value]...
//
// This file only codes the header. Whether to believe one is the caller's
// decision: a header is honoured only from a peer in its TrustedNets.

// DefaultMaxProxyHeader bounds a v2 header by default: the largest address
// block (216 bytes for AF_UNIX) plus room for the TLVs load balancers add.
const DefaultMaxProxyHeader = 1024

// ProxyCommand says whether a header carries a relayed connection's
// addresses.
type ProxyCommand uint8

const (
	ProxyLocal ProxyCommand = iota // the sender's own connection, e.g. a health check
	ProxyProxy                     // relayed for a client
)

// ProxyHeader is a decoded PROXY protocol header. Source and Destination
// are valid only for TCP over IPv4 or IPv6; otherwise (LOCAL, v1 UNKNOWN,
// v2 UNSPEC, UDP or UNIX) the connection's own endpoints stand.
type ProxyHeader struct {
	Version     int // 1 (text) or 2 (binary)
	Command     ProxyCommand
	Source      netip.AddrPort // the client
	Destination netip.AddrPort // the address the client connected to
	TLVs        []byte         // v2 PROXY only: raw TLVs after the addresses, checked for shape
}

// ParseProxyHeader decodes the v1 or v2 header at the start of b and
// returns it with the number of bytes it used. maxHeader bounds a v2 header
// (DefaultMaxProxyHeader when <= 0); a v1 line is bounded by the spec's 107
// bytes. ErrNotProxyHeader (in a *mc.ProtocolError) means b does not start
// like either version, so the bytes belong to the next protocol. TLVs alias b.
func ParseProxyHeader(b []byte, maxHeader int) (ProxyHeader, int, error) {
	if maxHeader <= 0 {
		maxHeader = DefaultMaxProxyHeader
	}
	switch {
	case startsLike(b, proxyV2Signature):
		return parseProxyV2(b, maxHeader)
	case startsLike(b, proxyV1Prefix):
		return parseProxyV1(b)
	}
	return ProxyHeader{}, 0, protocolError("proxy", 0, ErrNotProxyHeader)
}

// ReadProxyHeader reads a v1 or v2 header from r; on ErrNotProxyHeader
// nothing is consumed. The returned TLVs are the caller's own.
func ReadProxyHeader(r *bufio.Reader, maxHeader int) (ProxyHeader, error) {
	h, err := mc.ReadParsed(r, func(b []byte) (ProxyHeader, int, error) { return ParseProxyHeader(b, maxHeader) })
	h.TLVs = bytes.Clone(h.TLVs)
	return h, err
}

// Append appends h in its Version's encoding. Addresses of different
// families are both sent as IPv6; a header without valid addresses is sent
// as v1 UNKNOWN or v2 UNSPEC, and a LOCAL one carries no addresses or TLVs.
func (h ProxyHeader) Append(dst []byte) ([]byte, error) {
	switch {
	case h.Command > ProxyProxy:
	case h.Version == 1:
		return appendProxyV1(dst, h), nil
	case h.Version == 2:
		return appendProxyV2(dst, h)
	}
	return dst, protocolError("proxy", 0, ErrProxyCommand)
}

// proxyAddrs returns h's addresses in one family, unmapped to IPv4 when both
// allow it, and whether there are any.
func (h ProxyHeader) proxyAddrs() (src, dst netip.AddrPort, v4, ok bool) {
	if h.Command != ProxyProxy || !h.Source.IsValid() || !h.Destination.IsValid() {
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
