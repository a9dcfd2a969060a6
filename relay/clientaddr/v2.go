package clientaddr

import (
	"encoding/binary"
	"hash/crc32"
	"net/netip"

	"github.com/moonbridge/moonbridge/mc"
)

// Version 2 is checked as far as it has arrived: signature, then version 2
// with command LOCAL or PROXY, then a family the spec defines, then the
// length against the limit, so a bad header is refused before its body
// comes. For PROXY the address block must fit the family and the TLVs after
// it must parse as whole type-length-value triples; a CRC32c TLV, when
// present, must match. LOCAL headers are skipped whole, family included, as
// the spec says.

const v2Signature = "\r\n\r\n\x00\r\nQUIT\n"

const (
	v2HeadLen = len(v2Signature) + 4 // signature, ver_cmd, family, length
	v2Version = 0x20
	tlvCRC32C = 0x03
)

// v2AddrLen maps the valid family-and-transport bytes to their address
// block size. Only TCP is decoded; the others count as UNSPEC, which the
// spec allows.
var v2AddrLen = map[byte]int{
	0x00: 0,            // UNSPEC
	0x11: 12, 0x12: 12, // TCP, UDP over IPv4
	0x21: 36, 0x22: 36, // TCP, UDP over IPv6
	0x31: 216, 0x32: 216, // UNIX stream, datagram
}

const (
	v2TCP4 = 0x11
	v2TCP6 = 0x21
)

func parseV2(b []byte, maxHeader int) (Header, int, error) {
	n, err := v2Head(b, maxHeader)
	if err != nil {
		return Header{}, 0, err
	}
	h := Header{Version: 2, Command: Command(b[12] & 0x0f)}
	if h.Command == Local {
		return h, n, nil
	}
	block := b[v2HeadLen:n]
	addrLen := v2AddrLen[b[13]]
	if len(block) < addrLen {
		return Header{}, 0, protocolError("proxy v2", 14, ErrAddress)
	}
	h.Source, h.Destination = v2Addrs(b[13], block)
	if len(block) > addrLen {
		h.TLVs = block[addrLen:]
	}
	if err := checkTLVs(b[:n], v2HeadLen+addrLen); err != nil {
		return Header{}, 0, err
	}
	return h, n, nil
}

// v2Head checks the fixed 16 bytes as far as they have arrived and
// returns the header's total size once the whole header has.
func v2Head(b []byte, maxHeader int) (int, error) {
	fail := func(at int, reason error) (int, error) { return 0, protocolError("proxy v2", at, reason) }
	switch {
	case len(b) > 12 && (b[12]&0xf0 != v2Version || b[12]&0x0f > byte(Relayed)):
		return fail(12, ErrCommand)
	case len(b) > 13 && b[12] == v2Version|byte(Relayed) && !validV2Family(b[13]):
		return fail(13, ErrFamily)
	case len(b) < v2HeadLen:
		return 0, mc.ErrNeedMore
	}
	n := v2HeadLen + int(binary.BigEndian.Uint16(b[14:]))
	switch {
	case n > maxHeader:
		return fail(14, mc.ErrTooLarge)
	case len(b) < n:
		return 0, mc.ErrNeedMore
	}
	return n, nil
}

func validV2Family(f byte) bool {
	_, ok := v2AddrLen[f]
	return ok
}

// v2Addrs decodes the TCP address blocks; other families carry none.
func v2Addrs(family byte, block []byte) (src, dst netip.AddrPort) {
	var ipLen int
	switch family {
	case v2TCP4:
		ipLen = 4
	case v2TCP6:
		ipLen = 16
	default:
		return src, dst
	}
	s, _ := netip.AddrFromSlice(block[:ipLen])
	d, _ := netip.AddrFromSlice(block[ipLen : 2*ipLen])
	ports := block[2*ipLen:]
	return netip.AddrPortFrom(s, binary.BigEndian.Uint16(ports)),
		netip.AddrPortFrom(d, binary.BigEndian.Uint16(ports[2:]))
}

// checkTLVs walks the TLVs of header from offset on, refusing a partial
// one, and verifies a CRC32c TLV over the header with its value zeroed.
func checkTLVs(header []byte, offset int) error {
	for at := offset; at < len(header); {
		if len(header)-at < 3 {
			return protocolError("proxy v2", at, mc.ErrMalformed)
		}
		size := int(binary.BigEndian.Uint16(header[at+1:]))
		value := at + 3
		if len(header)-value < size {
			return protocolError("proxy v2", at, mc.ErrMalformed)
		}
		if header[at] == tlvCRC32C && !crc32cMatches(header, value, size) {
			return protocolError("proxy v2", at, ErrChecksum)
		}
		at = value + size
	}
	return nil
}

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
	zeroCRC    [4]byte // stands in for the checksum while it is computed
)

func crc32cMatches(header []byte, value, size int) bool {
	if size != 4 {
		return false
	}
	sum := crc32.Update(0, castagnoli, header[:value])
	sum = crc32.Update(sum, castagnoli, zeroCRC[:])
	sum = crc32.Update(sum, castagnoli, header[value+4:])
	return sum == binary.BigEndian.Uint32(header[value:])
}

func appendV2(dst []byte, h Header) ([]byte, error) {
	src, dest, v4, ok := h.addrs()
	family, addrLen := byte(0x00), 0
	switch {
	case ok && v4:
		family, addrLen = v2TCP4, 12
	case ok:
		family, addrLen = v2TCP6, 36
	}
	tlvs := h.TLVs
	if h.Command == Local {
		tlvs = nil
	}
	size := addrLen + len(tlvs)
	if size > 0xffff {
		return dst, protocolError("proxy v2", 14, mc.ErrTooLarge)
	}
	dst = append(dst, v2Signature...)
	dst = append(dst, v2Version|byte(h.Command), family)
	dst = binary.BigEndian.AppendUint16(dst, uint16(size))
	if ok {
		dst = appendIP(appendIP(dst, src.Addr()), dest.Addr())
		dst = binary.BigEndian.AppendUint16(dst, src.Port())
		dst = binary.BigEndian.AppendUint16(dst, dest.Port())
	}
	return append(dst, tlvs...), nil
}

// appendIP appends a's 4 or 16 bytes without allocating.
func appendIP(dst []byte, a netip.Addr) []byte {
	if a.Is4() {
		ip := a.As4()
		return append(dst, ip[:]...)
	}
	ip := a.As16()
	return append(dst, ip[:]...)
}
