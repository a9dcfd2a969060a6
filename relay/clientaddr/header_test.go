package clientaddr

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"testing/quick"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

const v2sig = "0d0a0d0a000d0a515549540a"

var (
	ffff6       = strings.Repeat("ffff:", 7) + "ffff"
	spec4Source = netip.MustParseAddrPort("192.168.0.1:56324")
	spec4Dest   = netip.MustParseAddrPort("192.168.0.11:443")
	max6        = netip.MustParseAddrPort("[" + ffff6 + "]:65535")
)

func TestParseHeader(t *testing.T) {
	alpnTLV := unhex("01 0002 6832")
	cases := []struct {
		name string
		wire []byte
		want Header
	}{
		{"v1 TCP4 from the spec", []byte("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n"),
			Header{Version: 1, Command: Relayed, Source: spec4Source, Destination: spec4Dest}},
		{"v1 TCP6 longest", []byte("PROXY TCP6 " + ffff6 + " " + ffff6 + " 65535 65535\r\n"),
			Header{Version: 1, Command: Relayed, Source: max6, Destination: max6}},
		{"v1 TCP6 compressed", []byte("PROXY TCP6 2001:db8::1 ::1 0 25565\r\n"),
			Header{Version: 1, Command: Relayed, Source: netip.MustParseAddrPort("[2001:db8::1]:0"), Destination: netip.MustParseAddrPort("[::1]:25565")}},
		{"v1 UNKNOWN short", []byte("PROXY UNKNOWN\r\n"), Header{Version: 1, Command: Relayed}},
		{"v1 UNKNOWN worst case, 107 bytes", []byte("PROXY UNKNOWN " + ffff6 + " " + ffff6 + " 65535 65535\r\n"),
			Header{Version: 1, Command: Relayed}},
		{"v2 TCP4 from the spec", unhex(v2sig + "21 11 000c c0a80001 c0a8000b dc04 01bb"),
			Header{Version: 2, Command: Relayed, Source: spec4Source, Destination: spec4Dest}},
		{"v2 TCP6", unhex(v2sig + "21 21 0024" + strings.Repeat("ff", 32) + "ffff ffff"),
			Header{Version: 2, Command: Relayed, Source: max6, Destination: max6}},
		{"v2 TCP4 with ALPN TLV", unhex(v2sig + "21 11 0011 c0a80001 c0a8000b dc04 01bb 01 0002 6832"),
			Header{Version: 2, Command: Relayed, Source: spec4Source, Destination: spec4Dest, TLVs: alpnTLV}},
		{"v2 LOCAL", unhex(v2sig + "20 00 0000"), Header{Version: 2, Command: Local}},
		{"v2 LOCAL ignores family and block", unhex(v2sig + "20 ff 0003 aabbcc"), Header{Version: 2, Command: Local}},
		{"v2 UNSPEC with NOOP TLV", unhex(v2sig + "21 00 0007 04 0004 00000000"),
			Header{Version: 2, Command: Relayed, TLVs: unhex("04 0004 00000000")}},
		{"v2 UDP4 carries no TCP address", unhex(v2sig + "21 12 000c c0a80001 c0a8000b dc04 01bb"),
			Header{Version: 2, Command: Relayed}},
		{"v2 UNIX stream", unhex(v2sig + "21 31 00d8" + strings.Repeat("00", 216)), Header{Version: 2, Command: Relayed}},
		{"v2 with valid CRC32c", withCRC32C(unhex(v2sig + "21 11 0013 c0a80001 c0a8000b dc04 01bb 03 0004 00000000")),
			Header{Version: 2, Command: Relayed, Source: spec4Source, Destination: spec4Dest}},
	}
	for _, tc := range cases {
		in := append(bytes.Clone(tc.wire), "\x0f\x00"...) // a handshake follows
		h, n, err := ParseHeader(in, 0)
		if err != nil || n != len(tc.wire) {
			t.Errorf("%s: n %d, %v", tc.name, n, err)
			continue
		}
		if tc.name == "v2 with valid CRC32c" {
			tc.want.TLVs = tc.wire[28:]
		}
		if !reflect.DeepEqual(h, tc.want) {
			t.Errorf("%s: %+v\nwant %+v", tc.name, h, tc.want)
		}
		testutil.CheckPrefixesNeedMore(t, tc.wire, func(b []byte) (Header, int, error) { return ParseHeader(b, 0) }, mc.ErrNeedMore)
	}
}

// withCRC32C fills in the value of the CRC32c TLV that ends header.
func withCRC32C(header []byte) []byte {
	sum := crc32.Checksum(header, crc32.MakeTable(crc32.Castagnoli))
	binary.BigEndian.PutUint32(header[len(header)-4:], sum)
	return header
}

func TestParseHeaderRejects(t *testing.T) {
	badCRC := withCRC32C(unhex(v2sig + "21 11 0013 c0a80001 c0a8000b dc04 01bb 03 0004 00000000"))
	badCRC[20]++
	cases := []struct {
		name string
		wire string
		want error
	}{
		{"not a header", "\x0f\x00/", ErrNotHeader},
		{"PROXX", "PROXX", ErrNotHeader},
		{"v1 leading zero in IPv4", "PROXY TCP4 192.168.0.01 192.168.0.11 56324 443\r\n", ErrAddress},
		{"v1 leading zero in port", "PROXY TCP4 192.168.0.1 192.168.0.11 56324 0443\r\n", ErrAddress},
		{"v1 port too big", "PROXY TCP4 192.168.0.1 192.168.0.11 65536 443\r\n", ErrAddress},
		{"v1 signed port", "PROXY TCP4 192.168.0.1 192.168.0.11 +1 443\r\n", ErrAddress},
		{"v1 IPv6 under TCP4", "PROXY TCP4 ::1 ::1 1 2\r\n", ErrAddress},
		{"v1 IPv4 under TCP6", "PROXY TCP6 1.2.3.4 ::1 1 2\r\n", ErrAddress},
		{"v1 zone", "PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n", ErrAddress},
		{"v1 double space", "PROXY TCP4  192.168.0.1 192.168.0.11 56324 443\r\n", mc.ErrMalformed},
		{"v1 trailing space", "PROXY TCP4 192.168.0.1 192.168.0.11 56324 443 \r\n", mc.ErrMalformed},
		{"v1 missing port", "PROXY TCP4 192.168.0.1 192.168.0.11 56324\r\n", mc.ErrMalformed},
		{"v1 other protocol", "PROXY UDP4 192.168.0.1 192.168.0.11 56324 443\r\n", mc.ErrMalformed},
		{"v1 lone LF", "PROXY UNKNOWN\n", mc.ErrMalformed},
		{"v1 lone CR", "PROXY UNKNOWN\rX\n", mc.ErrMalformed},
		{"v1 no CRLF in 107 bytes", "PROXY UNKNOWN " + strings.Repeat("a", 93), mc.ErrTooLarge},
		{"v1 CRLF at byte 108", "PROXY UNKNOWN " + strings.Repeat("a", 92) + "\r\n", mc.ErrTooLarge},
		{"v2 version 1", string(unhex(v2sig + "11")), ErrCommand},
		{"v2 command 2", string(unhex(v2sig + "22")), ErrCommand},
		{"v2 family 0x13", string(unhex(v2sig + "21 13")), ErrFamily},
		{"v2 family 0x41", string(unhex(v2sig + "21 41")), ErrFamily},
		{"v2 over the limit", string(unhex(v2sig + "21 11 03f1")), mc.ErrTooLarge},
		{"v2 TCP4 block too short", string(unhex(v2sig + "21 11 000b c0a80001 c0a8000b dc04 01")), ErrAddress},
		{"v2 partial TLV", string(unhex(v2sig + "21 11 000e c0a80001 c0a8000b dc04 01bb 0100")), mc.ErrMalformed},
		{"v2 TLV overruns", string(unhex(v2sig + "21 11 0010 c0a80001 c0a8000b dc04 01bb 01 0005 68")), mc.ErrMalformed},
		{"v2 CRC32c of the wrong size", string(unhex(v2sig + "21 00 0005 03 0002 0000")), ErrChecksum},
		{"v2 CRC32c mismatch", string(badCRC), ErrChecksum},
	}
	for _, tc := range cases {
		_, n, err := ParseHeader([]byte(tc.wire), 0)
		var pe *mc.ProtocolError
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) || n != 0 {
			t.Errorf("%s: n %d, %v; want %v", tc.name, n, err, tc.want)
		}
	}
}

func TestHeaderAppend(t *testing.T) {
	v6 := netip.MustParseAddrPort("[2001:db8::7]:4711")
	cases := []struct {
		name string
		h    Header
		want []byte
	}{
		{"v1 TCP4", Header{Version: 1, Command: Relayed, Source: spec4Source, Destination: spec4Dest},
			[]byte("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n")},
		{"v1 mapped IPv4 is sent as TCP4", Header{Version: 1, Command: Relayed,
			Source: netip.MustParseAddrPort("[::ffff:192.168.0.1]:56324"), Destination: spec4Dest},
			[]byte("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n")},
		{"v1 mixed families as TCP6", Header{Version: 1, Command: Relayed, Source: v6, Destination: spec4Dest},
			[]byte("PROXY TCP6 2001:db8::7 ::ffff:192.168.0.11 4711 443\r\n")},
		{"v1 LOCAL as UNKNOWN", Header{Version: 1, Command: Local, Source: v6, Destination: v6}, []byte("PROXY UNKNOWN\r\n")},
		{"v2 TCP4", Header{Version: 2, Command: Relayed, Source: spec4Source, Destination: spec4Dest},
			unhex(v2sig + "21 11 000c c0a80001 c0a8000b dc04 01bb")},
		{"v2 TCP6", Header{Version: 2, Command: Relayed, Source: v6, Destination: spec4Dest},
			unhex(v2sig + "21 21 0024 20010db8000000000000000000000007 00000000000000000000ffffc0a8000b 1267 01bb")},
		{"v2 LOCAL", Header{Version: 2, Command: Local, Source: v6, Destination: v6, TLVs: []byte{1, 0, 0}},
			unhex(v2sig + "20 00 0000")},
		{"v2 no address is UNSPEC", Header{Version: 2, Command: Relayed}, unhex(v2sig + "21 00 0000")},
	}
	for _, tc := range cases {
		got, err := tc.h.Append([]byte{})
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%s: %q, %v\nwant %q", tc.name, got, err, tc.want)
		}
	}
	for _, h := range []Header{{Version: 3}, {Version: 2, Command: 7}, {Version: 2, Command: Relayed, TLVs: make([]byte, 0x10000)}} {
		if _, err := h.Append(nil); err == nil {
			t.Errorf("Append(%+v) succeeded", h)
		}
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	addrs := []string{"0.0.0.0:0", "203.0.113.7:25565", "[::1]:1", "[2001:db8::1]:65535", "[::ffff:10.0.0.1]:80", "[fe80::1]:443"}
	for _, version := range []int{1, 2} {
		for _, s := range addrs {
			for _, d := range addrs {
				h := Header{Version: version, Command: Relayed, Source: netip.MustParseAddrPort(s), Destination: netip.MustParseAddrPort(d)}
				checkProxyRoundTrip(t, h)
			}
		}
	}
}

// checkProxyRoundTrip asserts that h, encoded and decoded, comes back the
// same but for the normalised address family.
func checkProxyRoundTrip(t *testing.T, h Header) {
	t.Helper()
	wire, err := h.Append(nil)
	if err != nil {
		t.Fatalf("Append(%+v): %v", h, err)
	}
	got, n, err := ParseHeader(wire, len(wire))
	if errors.Is(err, ErrChecksum) {
		return // a CRC32c TLV is not recomputed for a re-encoded header
	}
	if err != nil || n != len(wire) {
		t.Fatalf("parse of %q from %+v: n %d, %v", wire, h, n, err)
	}
	if !sameHeader(got, h) {
		t.Fatalf("round trip of %+v via %q gave %+v", h, wire, got)
	}
}

func sameHeader(a, b Header) bool {
	unmap := func(ap netip.AddrPort) netip.AddrPort {
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	return a.Version == b.Version && a.Command == b.Command &&
		unmap(a.Source) == unmap(b.Source) && unmap(a.Destination) == unmap(b.Destination) &&
		bytes.Equal(a.TLVs, b.TLVs)
}

func TestHeaderRoundTripGenerated(t *testing.T) {
	roundTrip := func(version bool, src, dst [16]byte, sport, dport uint16, v4 bool) bool {
		h := Header{Version: 1, Command: Relayed,
			Source: netip.AddrPortFrom(netip.AddrFrom16(src), sport), Destination: netip.AddrPortFrom(netip.AddrFrom16(dst), dport)}
		if version {
			h.Version = 2
		}
		if v4 {
			h.Source = netip.AddrPortFrom(netip.AddrFrom4([4]byte(src[:4])), sport)
		}
		checkProxyRoundTrip(t, h)
		return !t.Failed()
	}
	if err := quick.Check(roundTrip, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
}

func TestReadHeader(t *testing.T) {
	v2 := unhex(v2sig + "21 11 0011 c0a80001 c0a8000b dc04 01bb 01 0002 6832")
	r := bufio.NewReader(&testutil.ChunkReader{Chunks: [][]byte{v2[:5], v2[5:14], append(bytes.Clone(v2[14:]), handshake18...)}})
	h, err := ReadHeader(r, 0)
	if err != nil || h.Source != spec4Source || !bytes.Equal(h.TLVs, unhex("01 0002 6832")) {
		t.Fatalf("ReadHeader = %+v, %v", h, err)
	}
	if hello, err := mc.ReadHello(r, 0); err != nil || !bytes.Equal(hello.Handshake.Raw, handshake18) {
		t.Fatalf("hello after the header: %+v, %v", hello, err)
	}

	r = bufio.NewReader(&testutil.ChunkReader{Chunks: [][]byte{handshake18}})
	if _, err := ReadHeader(r, 0); !errors.Is(err, ErrNotHeader) || r.Buffered() != len(handshake18) {
		t.Fatalf("no header: %v, %d bytes left buffered", err, r.Buffered())
	}
}

func FuzzHeader(f *testing.F) {
	f.Add([]byte("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\nGET /"), 0)
	f.Add([]byte("PROXY TCP6 2001:db8::1 ::ffff:1.2.3.4 0 25565\r\n"), 0)
	f.Add([]byte("PROXY UNKNOWN\r\n"), 0)
	f.Add([]byte("PROXY UNKNOWN "+ffff6+" "+ffff6+" 65535 65535\r\n"), 0)
	f.Add(unhex(v2sig+"21 11 000c c0a80001 c0a8000b dc04 01bb 0f00"), 0)
	f.Add(unhex(v2sig+"21 21 0024"+strings.Repeat("ff", 32)+"ffff ffff"), 0)
	f.Add(unhex(v2sig+"21 11 0011 c0a80001 c0a8000b dc04 01bb 01 0002 6832"), 64)
	f.Add(unhex(v2sig+"20 ff 0003 aabbcc"), 0)
	f.Add(unhex(v2sig+"21 31 00d8"+strings.Repeat("00", 216)), 200)
	f.Add(withCRC32C(unhex(v2sig+"21 11 0013 c0a80001 c0a8000b dc04 01bb 03 0004 00000000")), 0)
	f.Fuzz(func(t *testing.T, in []byte, maxHeader int) {
		h, n, err := ParseHeader(in, maxHeader)
		testutil.CheckParseResult(t, in, n, err, mc.ErrNeedMore, protocolOffset)
		if err != nil {
			return
		}
		limit := maxHeader
		switch {
		case h.Version == 1:
			limit = maxV1Line
		case limit <= 0:
			limit = DefaultMaxHeader
		}
		if n > limit {
			t.Fatalf("v%d header of %d bytes passed the limit of %d", h.Version, n, limit)
		}
		if h.Source.IsValid() != h.Destination.IsValid() {
			t.Fatalf("only one address valid: %+v", h)
		}
		testutil.CheckPrefixesNeedMore(t, in[:n], func(b []byte) (Header, int, error) { return ParseHeader(b, maxHeader) }, mc.ErrNeedMore)
		checkProxyRoundTrip(t, h)
	})
}
