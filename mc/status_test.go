package mc

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

func TestStatusJSON(t *testing.T) {
	s := Status{VersionName: "moonbridge", Protocol: 767, MaxPlayers: 100, OnlinePlayers: 3, MOTD: "§cDown for <maintenance>"}
	got, err := s.JSON()
	want := `{"version":{"name":"moonbridge","protocol":767},"players":{"max":100,"online":3},` +
		`"description":{"text":"§cDown for \u003cmaintenance\u003e"}}`
	if err != nil || string(got) != want {
		t.Errorf("JSON = %s, %v\nwant %s", got, err, want)
	}
}

func TestStatusJSONTooLarge(t *testing.T) {
	s := Status{Favicon: "data:image/png;base64," + strings.Repeat("A", maxStatusChars)}
	if _, err := s.JSON(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("JSON with a huge favicon: %v, want ErrTooLarge", err)
	}
}

func TestStatusFrames(t *testing.T) {
	cases := []struct {
		name string
		got  []byte
		want []byte
	}{
		// len 5, id 0, a string of 3 bytes: "a" (the layout, not a real status).
		{"status response", AppendStatusResponse(nil, []byte(`"a"`)), unhex(`05 00 03 226122`)},
		{"pong", AppendPong(nil, [8]byte{1, 2, 3, 4, 5, 6, 7, 8}), unhex("09 01 0102030405060708")},
		// len 15, id 0, string of 13: {"text":"No"}
		{"login disconnect", AppendLoginDisconnect(nil, "No"), unhex(`0f 00 0d 7b2274657874223a224e6f227d`)},
	}
	for _, tc := range cases {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s: % x\nwant % x", tc.name, tc.got, tc.want)
		}
	}
	// A 200-byte JSON needs a 2-byte string length and a 2-byte frame length.
	long := bytes.Repeat([]byte("x"), 200)
	frame := AppendStatusResponse([]byte{0xaa}, long)
	body, n, err := ReadFrame(frame[1:], MaxFrameLen)
	if err != nil || n != len(frame)-1 || !bytes.Equal(body[:3], unhex("00 c801")) || !bytes.Equal(body[3:], long) {
		t.Errorf("long status response % x: %v", frame[:8], err)
	}
}

func TestFaviconDataURL(t *testing.T) {
	encode := func(w, h int) []byte {
		var buf bytes.Buffer
		if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	icon := encode(64, 64)
	url, err := FaviconDataURL(icon)
	if err != nil || url != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(icon) {
		t.Errorf("FaviconDataURL = %.40s…, %v", url, err)
	}
	for name, data := range map[string][]byte{"32x32": encode(32, 32), "not a PNG": []byte("GIF89a")} {
		if _, err := FaviconDataURL(data); !errors.Is(err, ErrFavicon) {
			t.Errorf("%s: %v, want ErrFavicon", name, err)
		}
	}
}

func TestParseStatusPacket(t *testing.T) {
	cases := []struct {
		name    string
		wire    []byte
		want    StatusPacket
		n       int
		wantErr error
	}{
		{"status request", unhex("01 00"), StatusPacket{}, 2, nil},
		{"ping", unhex("09 01 0000019a2b3c4d5e ff"), StatusPacket{Ping: true, Payload: [8]byte{0, 0, 1, 0x9a, 0x2b, 0x3c, 0x4d, 0x5e}}, 10, nil},
		{"partial ping", unhex("09 01 0000"), StatusPacket{}, 0, ErrNeedMore},
		{"request with a body", unhex("02 00 00"), StatusPacket{}, 0, ErrTrailingBytes},
		{"short ping", unhex("05 01 00000000"), StatusPacket{}, 0, ErrTruncated},
		{"other packet", unhex("01 02"), StatusPacket{}, 0, ErrPacketID},
		{"too long", unhex("0a 01"), StatusPacket{}, 0, ErrTooLarge},
		{"empty frame", unhex("00"), StatusPacket{}, 0, ErrTruncated},
	}
	for _, tc := range cases {
		p, n, err := ParseStatusPacket(tc.wire)
		if !errors.Is(err, tc.wantErr) || n != tc.n || p != tc.want {
			t.Errorf("%s: %+v, %d, %v; want %+v, %d, %v", tc.name, p, n, err, tc.want, tc.n, tc.wantErr)
		}
	}
}

func TestStatusExchangeRoundTrip(t *testing.T) {
	// The pong answers the ping with the same payload, framed the same way.
	ping := unhex("09 01 1122334455667788")
	p, _, err := ParseStatusPacket(ping)
	if err != nil || !bytes.Equal(AppendPong(nil, p.Payload), ping) {
		t.Errorf("pong for % x: %v", ping, err)
	}
}

func FuzzStatusPacket(f *testing.F) {
	f.Add(unhex("01 00"))
	f.Add(unhex("09 01 0000019a2b3c4d5e 01 00"))
	f.Add(unhex("09 01 0000"))
	f.Add(unhex("02 00 00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		p, n, err := ParseStatusPacket(in)
		testutil.CheckParseResult(t, in, n, err, ErrNeedMore, protocolOffset)
		if err != nil {
			return
		}
		// Only two packets exist, each with one encoding.
		want := unhex("01 00")
		if p.Ping {
			want = AppendPong(nil, p.Payload) // a ping has the pong's layout
		}
		if !bytes.Equal(in[:n], want) {
			t.Fatalf("parsed %+v from % x", p, in[:n])
		}
	})
}
