package mc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// A 1.6.4 client (protocol 78) pinging localhost:25565.
var legacyPing16 = unhex(`fe 01 fa
	000b 004d 0043 007c 0050 0069 006e 0067 0048 006f 0073 0074
	0019 4e
	0009 006c 006f 0063 0061 006c 0068 006f 0073 0074
	000063dd`)

// encodeLegacyPing16 writes a 1.6 ping as the client does.
func encodeLegacyPing16(protocol byte, host string, port int32) []byte {
	b := []byte{0xfe, 0x01, 0xfa}
	b = binary.BigEndian.AppendUint16(b, uint16(len(legacyPingChannel)))
	b = appendUTF16BE(b, legacyPingChannel)
	b = binary.BigEndian.AppendUint16(b, uint16(7+2*utf16Len(host)))
	b = append(b, protocol)
	b = binary.BigEndian.AppendUint16(b, uint16(utf16Len(host)))
	b = appendUTF16BE(b, host)
	return binary.BigEndian.AppendUint32(b, uint32(port))
}

func TestParseHelloLegacyPing(t *testing.T) {
	cases := []struct {
		name string
		wire []byte
		want LegacyPing
	}{
		{"beta", unhex("fe"), LegacyPing{Form: LegacyPingBeta}},
		{"1.4", unhex("fe 01"), LegacyPing{Form: LegacyPing14}},
		{"1.6.4", legacyPing16, LegacyPing{Form: LegacyPing16, Protocol: 78, Host: "localhost", Port: 25565}},
		{"1.6 emoji host", encodeLegacyPing16(74, "😀.example", 1), LegacyPing{Form: LegacyPing16, Protocol: 74, Host: "😀.example", Port: 1}},
	}
	for _, tc := range cases {
		hello, n, err := ParseHello(tc.wire, 0)
		if err != nil || n != len(tc.wire) || hello.Legacy == nil || *hello.Legacy != tc.want {
			t.Errorf("%s: ParseHello = %+v, %d, %v", tc.name, hello.Legacy, n, err)
		}
	}
	// From the third byte on; FE and FE 01 are pings of their own.
	testutil.CheckPrefixesNeedMore(t, legacyPing16[3:], func(rest []byte) (Hello, int, error) {
		return ParseHello(append(bytes.Clone(legacyPing16[:3]), rest...), 0)
	}, ErrNeedMore)
}

func TestParseHelloModernFrameStartingWithFE(t *testing.T) {
	// A handshake body of 254 bytes has the length prefix fe 01, then packet
	// id 0, which no legacy ping has.
	host := strings.Repeat("a", 254-1-1-2-2-1)
	wire := frameOf(unhex("00 2f"), hostField(host), unhex("63dd 02"))
	if !bytes.HasPrefix(wire, unhex("fe01 00")) {
		t.Fatalf("fixture starts % x", wire[:3])
	}
	hello, n, err := ParseHello(wire, 0)
	if err != nil || n != len(wire) || hello.Legacy != nil || hello.Handshake.Host != host {
		t.Errorf("ParseHello = %+v, %d, %v", hello, n, err)
	}
}

func TestParseLegacyPingRejects(t *testing.T) {
	wrongChannel := bytes.Clone(legacyPing16)
	wrongChannel[6] = 'X'
	cases := []struct {
		name string
		wire []byte
		want error
	}{
		{"channel length", unhex("fe01fa 000c"), ErrMalformed},
		{"channel name", wrongChannel, ErrMalformed},
		{"data length", unhex("fe01fa 000b 004d0043007c00500069006e00670048006f00730074 0018 4e 0009"), ErrMalformed},
		{"host too long", unhex("fe01fa 000b 004d0043007c00500069006e00670048006f00730074 0207 4e 0100"), ErrHostTooLong},
		{"port out of range", encodeLegacyPing16(78, "a", 65536), ErrMalformed},
		{"negative port", encodeLegacyPing16(78, "a", -1), ErrMalformed},
		{"unpaired surrogate", unhex("fe01fa 000b 004d0043007c00500069006e00670048006f00730074 0009 4e 0001 d800 000063dd"), ErrBadEncoding},
	}
	for _, tc := range cases {
		if _, n, err := ParseHello(tc.wire, 0); !errors.Is(err, tc.want) || n != 0 {
			t.Errorf("%s: n %d, %v; want %v", tc.name, n, err, tc.want)
		}
	}
}

func TestReadHelloLegacyFirstRead(t *testing.T) {
	for _, tc := range []struct {
		chunks [][]byte
		form   LegacyPingForm
	}{
		{[][]byte{{0xfe}}, LegacyPingBeta},
		{[][]byte{{0xfe, 0x01}}, LegacyPing14},
		{[][]byte{legacyPing16[:5], legacyPing16[5:]}, LegacyPing16},
	} {
		r := bufio.NewReader(&testutil.ChunkReader{Chunks: tc.chunks})
		hello, err := ReadHello(r, 0)
		if err != nil || hello.Legacy == nil || hello.Legacy.Form != tc.form || r.Buffered() != 0 {
			t.Errorf("chunks % x: %+v, %v", tc.chunks, hello.Legacy, err)
		}
	}
}

func TestAppendLegacyKick(t *testing.T) {
	s := Status{VersionName: "1.21", Protocol: 127, MOTD: "A", OnlinePlayers: 0, MaxPlayers: 20}
	cases := []struct {
		form LegacyPingForm
		s    Status
		want []byte
	}{
		// "§1\0127\01.21\0A\00\020", 18 UTF-16 units.
		{LegacyPing16, s, unhex("ff 0012 00a7 0031 0000 0031 0032 0037 0000 0031 002e 0032 0031 0000 0041 0000 0030 0000 0032 0030")},
		// "A§0§20": the Beta form, with the § code removed from the MOTD.
		{LegacyPingBeta, Status{MOTD: "§cA", MaxPlayers: 20}, unhex("ff 0006 0041 00a7 0030 00a7 0032 0030")},
	}
	for _, tc := range cases {
		if got := AppendLegacyKick(nil, tc.form, tc.s); !bytes.Equal(got, tc.want) {
			t.Errorf("form %d: % x\nwant % x", tc.form, got, tc.want)
		}
	}
}

func TestAppendLegacyKickFitsClientLimit(t *testing.T) {
	s := Status{VersionName: "v", MOTD: strings.Repeat("😀", 300), OnlinePlayers: 12, MaxPlayers: 100}
	for _, form := range []LegacyPingForm{LegacyPingBeta, LegacyPing14, LegacyPing16} {
		kick := AppendLegacyKick(nil, form, s)
		units := int(binary.BigEndian.Uint16(kick[1:]))
		text, ok := decodeUTF16BE(kick[3:])
		if !ok || units > maxLegacyKickChars || units != utf16Len(text) || !strings.HasSuffix(text, "12§100") && !strings.HasSuffix(text, "12\x00100") {
			t.Errorf("form %d: %d units, text %q", form, units, text)
		}
	}
}

// checkLegacyPing asserts a parsed legacy ping matches the bytes it used.
func checkLegacyPing(t *testing.T, raw []byte, p LegacyPing) {
	t.Helper()
	var want []byte
	switch p.Form {
	case LegacyPingBeta:
		want = []byte{0xfe}
	case LegacyPing14:
		want = []byte{0xfe, 0x01}
	default:
		want = encodeLegacyPing16(p.Protocol, p.Host, int32(p.Port))
	}
	if !bytes.Equal(raw, want) {
		t.Fatalf("legacy ping %+v from % x, re-encodes to % x", p, raw, want)
	}
}
