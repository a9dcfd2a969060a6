package mc

import (
	"bytes"
	"errors"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// shapeOf is LoginShapeOf for tests that know the version is in the table.
func shapeOf(t testing.TB, protocol int32) LoginShape {
	t.Helper()
	shape, _, ok := LoginShapeOf(protocol)
	if !ok {
		t.Fatalf("protocol %d is not in the table", protocol)
	}
	return shape
}

// TestLoginShapeOf checks the table at the edges of every row: the last version before a change
// and the first one after it, against the protocol pages of each release.
func TestLoginShapeOf(t *testing.T) {
	type want struct {
		name                                        string
		short, compression, plugins, key, salt, ack bool
		shouldAuth, properties, strict              bool
		startUUID, successUUID                      UUIDField
	}
	cases := map[int32]want{
		4:   {name: "1.7.2", short: true, successUUID: UUIDPlainString},
		5:   {name: "1.7.6", short: true, successUUID: UUIDHyphenated},
		47:  {name: "1.8", compression: true, successUUID: UUIDHyphenated},
		340: {name: "1.12.2", compression: true, successUUID: UUIDHyphenated},
		393: {name: "1.13", compression: true, plugins: true, successUUID: UUIDHyphenated},
		578: {name: "1.15.2", compression: true, plugins: true, successUUID: UUIDHyphenated},
		735: {name: "1.16", compression: true, plugins: true, successUUID: UUIDBinary},
		758: {name: "1.18.2", compression: true, plugins: true, successUUID: UUIDBinary},
		759: {name: "1.19", compression: true, plugins: true, key: true, salt: true, properties: true, successUUID: UUIDBinary},
		760: {name: "1.19.1", compression: true, plugins: true, key: true, salt: true, properties: true,
			startUUID: UUIDOptional, successUUID: UUIDBinary},
		761: {name: "1.19.3", compression: true, plugins: true, properties: true, startUUID: UUIDOptional, successUUID: UUIDBinary},
		763: {name: "1.20", compression: true, plugins: true, properties: true, startUUID: UUIDOptional, successUUID: UUIDBinary},
		764: {name: "1.20.2", compression: true, plugins: true, properties: true, ack: true,
			startUUID: UUIDBinary, successUUID: UUIDBinary},
		765: {name: "1.20.3", compression: true, plugins: true, properties: true, ack: true,
			startUUID: UUIDBinary, successUUID: UUIDBinary},
		766: {name: "1.20.5", compression: true, plugins: true, properties: true, ack: true, shouldAuth: true, strict: true,
			startUUID: UUIDBinary, successUUID: UUIDBinary},
		767: {name: "1.21", compression: true, plugins: true, properties: true, ack: true, shouldAuth: true, strict: true,
			startUUID: UUIDBinary, successUUID: UUIDBinary},
		768: {name: "1.21.2", compression: true, plugins: true, properties: true, ack: true, shouldAuth: true,
			startUUID: UUIDBinary, successUUID: UUIDBinary},
		774: {name: "1.21.11", compression: true, plugins: true, properties: true, ack: true, shouldAuth: true,
			startUUID: UUIDBinary, successUUID: UUIDBinary},
	}
	for protocol, w := range cases {
		shape, release, ok := LoginShapeOf(protocol)
		if !ok {
			t.Errorf("protocol %d: not known", protocol)
			continue
		}
		got := want{release.Name, shape.ShortArrays, shape.SetCompression, shape.PluginMessages, shape.LoginStartKey,
			shape.ResponseSalt, shape.LoginAcknowledged, shape.ShouldAuthenticate, shape.SuccessProperties,
			shape.StrictErrors, shape.LoginStartUUID, shape.SuccessUUID}
		if got != w {
			t.Errorf("protocol %d:\n got %+v\nwant %+v", protocol, got, w)
		}
	}
}

// TestLoginShapeOfUnknown: numbers between releases, before 1.7.2, after the newest release and
// snapshots are unknown.
func TestLoginShapeOfUnknown(t *testing.T) {
	for _, p := range []int32{-1, 0, 3, 6, 46, 48, 757 + 100, NewestRelease().Protocol + 1, 0x40000000 | 200} {
		if _, _, ok := LoginShapeOf(p); ok {
			t.Errorf("protocol %d: known, want unknown", p)
		}
	}
}

// TestTableOrder: the rows and the releases are sorted, which the binary searches need, and
// every row starts at a release.
func TestTableOrder(t *testing.T) {
	for i := 1; i < len(releases); i++ {
		if releases[i].Protocol <= releases[i-1].Protocol {
			t.Fatalf("releases out of order at %v", releases[i])
		}
	}
	for i, row := range loginShapes {
		if i > 0 && row.Since <= loginShapes[i-1].Since {
			t.Fatalf("shapes out of order at %d", row.Since)
		}
		if i > 0 && row == loginShapes[i-1] {
			t.Fatalf("row %d is the same shape as the one before", row.Since)
		}
		if _, _, ok := LoginShapeOf(row.Since); !ok {
			t.Fatalf("row %d does not start at a release", row.Since)
		}
	}
}

func TestParseLoginStartFrame(t *testing.T) {
	uuid := [16]byte{0x06, 0x9a, 0x79, 0xf4, 0x44, 0xe9, 0x47, 0x26, 0xa5, 0xbe, 0xfc, 0xa9, 0x0e, 0x38, 0xaa, 0xf5}
	cases := []struct {
		protocol int32
		wire     string
		want     LoginStart
	}{
		{4, "0600 046e6f7463", LoginStart{Name: "notc"}},
		{759, "0700 046e6f7463 00", LoginStart{Name: "notc"}},
		{759, "1600 046e6f7463 01 0000018000000000 02aabb 03ccddee",
			LoginStart{Name: "notc", Key: &PlayerKey{Expiry: 0x18000000000, PublicKey: []byte{0xaa, 0xbb}, Signature: []byte{0xcc, 0xdd, 0xee}}}},
		{760, "1800 046e6f7463 00 01 069a79f444e94726a5befca90e38aaf5", LoginStart{Name: "notc", UUID: uuid, HasUUID: true}},
		{761, "0700 046e6f7463 00", LoginStart{Name: "notc"}},
		{764, "1600 046e6f7463 069a79f444e94726a5befca90e38aaf5", LoginStart{Name: "notc", UUID: uuid, HasUUID: true}},
	}
	for _, c := range cases {
		wire := unhex(c.wire)
		shape := shapeOf(t, c.protocol)
		got, n, err := ParseLoginStartFrame(append(bytes.Clone(wire), 0x99), shape)
		if err != nil || n != len(wire) {
			t.Errorf("protocol %d: n %d err %v, want %d", c.protocol, n, err, len(wire))
			continue
		}
		if got.Name != c.want.Name || got.HasUUID != c.want.HasUUID || got.UUID != c.want.UUID ||
			(got.Key == nil) != (c.want.Key == nil) || got.Key != nil && (got.Key.Expiry != c.want.Key.Expiry ||
			!bytes.Equal(got.Key.PublicKey, c.want.Key.PublicKey) || !bytes.Equal(got.Key.Signature, c.want.Key.Signature)) {
			t.Errorf("protocol %d: got %+v, want %+v", c.protocol, got, c.want)
		}
		testutil.CheckPrefixesNeedMore(t, wire, func(b []byte) (LoginStart, int, error) { return ParseLoginStartFrame(b, shape) }, ErrNeedMore)
	}
}

func TestParseLoginStartFrameRefuses(t *testing.T) {
	cases := []struct {
		protocol int32
		wire     string
		reason   error
	}{
		{764, "0600 046e6f7463", ErrTruncated},                             // 1.20.2 needs the UUID
		{47, "0700 046e6f7463 00", ErrTrailingBytes},                       // 1.8 has nothing after the name
		{759, "0700 046e6f7463 02", ErrMalformed},                          // a bool is 0 or 1
		{759, "1100 046e6f7463 01 0000018000000000 ff7f", ErrArrayTooLong}, // a key of 16383 bytes
		{47, "0601 046e6f7463", ErrPacketID},
	}
	for _, c := range cases {
		_, _, err := ParseLoginStartFrame(unhex(c.wire), shapeOf(t, c.protocol))
		if !errors.Is(err, c.reason) {
			t.Errorf("protocol %d %s: err %v, want %v", c.protocol, c.wire, err, c.reason)
		}
	}
}

func TestAppendEncryptionRequest(t *testing.T) {
	key, token := []byte{0x30, 0x81}, []byte{1, 2, 3, 4}
	cases := map[int32]string{
		5:   "0c 01 00 0002 3081 0004 01020304", // 1.7: int16 lengths
		47:  "0a 01 00 02 3081 04 01020304",     // 1.8: VarInt lengths
		766: "0b 01 00 02 3081 04 01020304 01",  // 1.20.5: should authenticate
		774: "0b 01 00 02 3081 04 01020304 01",
	}
	for protocol, want := range cases {
		got := AppendEncryptionRequest(nil, shapeOf(t, protocol), "", key, token)
		if !bytes.Equal(got, unhex(want)) {
			t.Errorf("protocol %d: % x, want %s", protocol, got, want)
		}
	}
}

func TestParseEncryptionResponse(t *testing.T) {
	cases := []struct {
		protocol int32
		wire     string
		want     EncryptionResponse
	}{
		{5, "0b01 0002 aabb 0004 01020304", EncryptionResponse{SharedSecret: []byte{0xaa, 0xbb}, VerifyToken: []byte{1, 2, 3, 4}}},
		{47, "0901 02aabb 0401020304", EncryptionResponse{SharedSecret: []byte{0xaa, 0xbb}, VerifyToken: []byte{1, 2, 3, 4}}},
		{760, "0a01 02aabb 01 0401020304", EncryptionResponse{SharedSecret: []byte{0xaa, 0xbb}, VerifyToken: []byte{1, 2, 3, 4}}},
		{759, "1001 02aabb 00 0000000000000007 02eeff",
			EncryptionResponse{SharedSecret: []byte{0xaa, 0xbb}, Signed: true, Salt: 7, Signature: []byte{0xee, 0xff}}},
		{761, "0901 02aabb 0401020304", EncryptionResponse{SharedSecret: []byte{0xaa, 0xbb}, VerifyToken: []byte{1, 2, 3, 4}}},
	}
	for _, c := range cases {
		wire := unhex(c.wire)
		shape := shapeOf(t, c.protocol)
		got, n, err := ParseEncryptionResponse(wire, shape)
		if err != nil || n != len(wire) || !bytes.Equal(got.SharedSecret, c.want.SharedSecret) ||
			!bytes.Equal(got.VerifyToken, c.want.VerifyToken) || got.Signed != c.want.Signed || got.Salt != c.want.Salt ||
			!bytes.Equal(got.Signature, c.want.Signature) {
			t.Errorf("protocol %d: %+v n %d err %v, want %+v", c.protocol, got, n, err, c.want)
		}
		testutil.CheckPrefixesNeedMore(t, wire, func(b []byte) (EncryptionResponse, int, error) {
			return ParseEncryptionResponse(b, shape)
		}, ErrNeedMore)
	}
	if _, _, err := ParseEncryptionResponse(unhex("0501 ffff 0000"), shapeOf(t, 5)); !errors.Is(err, ErrMalformed) {
		t.Errorf("a negative 1.7 length: %v, want ErrMalformed", err)
	}
}

func TestPluginRequestAndResponse(t *testing.T) {
	p, err := ParsePluginRequest(unhex("07 14 76656c6f636974793a706c617965725f696e666f 04"))
	if err != nil || p.MessageID != 7 || p.Channel != "velocity:player_info" || !bytes.Equal(p.Data, []byte{4}) {
		t.Fatalf("%+v %v", p, err)
	}
	if got := AppendPluginResponseBody(nil, 7, []byte{0xaa}); !bytes.Equal(got, unhex("02 07 01 aa")) {
		t.Fatalf("response % x", got)
	}
	if th, err := ParseSetCompression(unhex("8002")); th != 256 || err != nil {
		t.Fatalf("threshold %d %v", th, err)
	}
}

func FuzzParseLoginStartFrame(f *testing.F) {
	fuzzLoginParser(f, ParseLoginStartFrame, map[int32]string{
		759: "1600 046e6f7463 01 0000018000000000 02aabb 03ccddee",
		760: "1800 046e6f7463 00 01 069a79f444e94726a5befca90e38aaf5",
		4:   "0600 046e6f7463",
	})
}

func FuzzParseEncryptionResponse(f *testing.F) {
	fuzzLoginParser(f, ParseEncryptionResponse, map[int32]string{
		759: "1001 02aabb 00 0000000000000007 02eeff",
		5:   "0b01 0002 aabb 0004 01020304",
		47:  "0901 02aabb 0401020304",
	})
}

// fuzzLoginParser fuzzes a login packet parser over the shapes of the table: whatever it gets, it
// answers a valid frame, ErrNeedMore or a *ProtocolError inside the input, never a panic.
func fuzzLoginParser[T any](f *testing.F, parse func([]byte, LoginShape) (T, int, error), seeds map[int32]string) {
	for protocol, wire := range seeds {
		f.Add(unhex(wire), protocol)
	}
	f.Fuzz(func(t *testing.T, in []byte, protocol int32) {
		shape, _, ok := LoginShapeOf(protocol)
		if !ok {
			return
		}
		_, n, err := parse(in, shape)
		testutil.CheckParseResult(t, in, n, err, ErrNeedMore, protocolOffset)
	})
}

func FuzzParsePluginRequest(f *testing.F) {
	f.Add(unhex("07 14 76656c6f636974793a706c617965725f696e666f 04"))
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := ParsePluginRequest(in)
		if err == nil && len(p.Data) > len(in) {
			t.Fatalf("data longer than the input")
		}
	})
}

// TestLoginRoundTrips: for every row of the table, what the client half writes the server half
// reads back (and the other way), with every optional field present and absent.
func TestLoginRoundTrips(t *testing.T) {
	key := &PlayerKey{Expiry: 99, PublicKey: []byte{1, 2}, Signature: []byte{3}}
	for _, shape := range loginShapes {
		for _, ls := range []LoginStart{{Name: "Alex"}, {Name: "Steve", Key: key, HasUUID: true, UUID: [16]byte{7}}} {
			if !shape.LoginStartKey {
				ls.Key = nil
			}
			if shape.LoginStartUUID == UUIDAbsent {
				ls.HasUUID, ls.UUID = false, [16]byte{}
			}
			if shape.LoginStartUUID == UUIDBinary {
				ls.HasUUID = true
			}
			wire := AppendLoginStart(nil, shape, ls)
			got, n, err := ParseLoginStartFrame(wire, shape)
			if err != nil || n != len(wire) || got.Name != ls.Name || got.HasUUID != ls.HasUUID || got.UUID != ls.UUID ||
				(got.Key == nil) != (ls.Key == nil) {
				t.Errorf("since %d: login start %+v -> %+v, %v", shape.Since, ls, got, err)
			}
		}
		req := AppendEncryptionRequest(nil, shape, "", []byte{9, 9}, []byte{1, 2, 3, 4})
		body, _, _ := ReadFrame(req, MaxFrameLen)
		_, fields, _ := PacketID(body)
		if r, err := ParseEncryptionRequest(fields, shape); err != nil || !bytes.Equal(r.VerifyToken, []byte{1, 2, 3, 4}) || !r.ShouldAuthenticate {
			t.Errorf("since %d: encryption request %+v %v", shape.Since, r, err)
		}
		resps := []EncryptionResponse{{SharedSecret: []byte{5}, VerifyToken: []byte{6}}}
		if shape.ResponseSalt {
			resps = append(resps, EncryptionResponse{SharedSecret: []byte{5}, Signed: true, Salt: -3, Signature: []byte{8}})
		}
		for _, r := range resps {
			wire := AppendEncryptionResponse(nil, shape, r)
			got, n, err := ParseEncryptionResponse(wire, shape)
			if err != nil || n != len(wire) || got.Signed != r.Signed || got.Salt != r.Salt || !bytes.Equal(got.VerifyToken, r.VerifyToken) {
				t.Errorf("since %d: encryption response %+v -> %+v, %v", shape.Since, r, got, err)
			}
		}
	}
}
