package auth_test

import (
	"bytes"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
)

func TestBungeeHost(t *testing.T) {
	p := authfake.Profile("Alex")
	f, err := authtest.ParseBungeeHost(auth.BungeeHost("play.example.net", "203.0.113.9", p))
	if err != nil {
		t.Fatal(err)
	}
	if f.Host != "play.example.net" || f.Address != "203.0.113.9" || f.UUID != p.ID.Hex() ||
		len(f.Properties) != 1 || f.Properties[0] != p.Properties[0] {
		t.Fatalf("%+v", f)
	}
	if got := auth.BungeeHost("h", "a", auth.OfflineProfile("x")); !strings.HasSuffix(got, "\x00[]") {
		t.Fatalf("no properties: %q, want an empty JSON array", got)
	}
}

func TestVelocityData(t *testing.T) {
	secret := []byte("s3cret")
	p := authfake.Profile("Alex")
	data := auth.VelocityData(secret, []byte{4}, "203.0.113.9", p, 767, mc.LoginStart{Name: "Alex"})
	f, err := authtest.CheckVelocity(secret, data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 4 || f.Address != "203.0.113.9" || f.UUID != p.ID.Hex() || f.Name != "Alex" ||
		len(f.Properties) != 1 || f.Properties[0] != p.Properties[0] {
		t.Fatalf("%+v", f)
	}
	if _, err := authtest.CheckVelocity([]byte("other"), data); err == nil {
		t.Fatal("a wrong secret passed")
	}
}

// TestVelocityVersions: the version answered for what the backend asks, the client's version
// and its chat key, as Velocity's findForwardingVersion chooses it; the key fields are there
// exactly when the version carries them.
func TestVelocityVersions(t *testing.T) {
	key := &mc.PlayerKey{Expiry: 5, PublicKey: []byte{1}, Signature: []byte{2}}
	cases := []struct {
		requested []byte
		protocol  int32
		key       *mc.PlayerKey
		want      int
	}{
		{nil, 767, nil, 1}, {[]byte{1}, 767, nil, 1}, {[]byte{4}, 767, nil, 4}, {[]byte{9}, 767, nil, 4},
		{[]byte{3}, 767, nil, 1}, {[]byte{4}, 759, key, 2}, {[]byte{4}, 760, key, 3}, {[]byte{2}, 760, key, 1},
		{[]byte{4}, 760, nil, 1}, {[]byte{4}, 758, nil, 1},
	}
	for _, c := range cases {
		start := mc.LoginStart{Name: "Alex", Key: c.key}
		data := auth.VelocityData([]byte("k"), c.requested, "a", authfake.Profile("Alex"), c.protocol, start)
		f, err := authtest.CheckVelocity([]byte("k"), data)
		if err != nil || f.Version != c.want {
			t.Errorf("asked %v, protocol %d, key %v: version %d (%v), want %d", c.requested, c.protocol, c.key != nil, f.Version, err, c.want)
		}
		short := auth.VelocityData([]byte("k"), c.requested, "a", authfake.Profile("Alex"), c.protocol, mc.LoginStart{Name: "Alex"})
		if withKey := c.want == 2 || c.want == 3; withKey != (len(data) > len(short)) {
			t.Errorf("version %d: key fields present %v", c.want, len(data) > len(short))
		}
	}
}

// TestAnswerVelocity runs the backend side of a login against a backend that asks for
// Velocity's data, with and without compression, and with the wrong secret.
func TestAnswerVelocity(t *testing.T) {
	for _, c := range []struct {
		compression bool
		secret      string
		ok          bool
	}{{false, "s3cret", true}, {true, "s3cret", true}, {false, "wrong", false}} {
		backend := &authtest.Backend{Forwarding: auth.ForwardVelocity, VelocitySecret: []byte("s3cret"),
			VelocityVersion: 4, Compression: c.compression, Got: make(chan authtest.BackendLogin, 1)}
		ln := testutil.Serve(t, backend.Serve)
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		shape, _, _ := mc.LoginShapeOf(767)
		start := mc.LoginStart{Name: "Alex", HasUUID: true}
		p := &auth.Player{Protocol: 767, Shape: shape, Start: start, StartFrame: mc.AppendLoginStart(nil, shape, start),
			Profile: authfake.Profile("Alex"), Address: "203.0.113.9"}
		hs := mc.Handshake{Protocol: 767, Port: 25565, NextState: mc.NextLogin}
		conn.Write(p.BackendHello(hs, "play.example.net", auth.ForwardVelocity))
		toPlayer, err := p.AnswerVelocity(conn, []byte(c.secret))
		if err != nil {
			t.Fatal(err)
		}
		got := <-backend.Got
		if c.ok != (got.Err == nil) || c.ok && (got.Forwarded.Name != "Alex" || got.Forwarded.Address != "203.0.113.9") {
			t.Fatalf("compression %v secret %s: backend saw %+v", c.compression, c.secret, got)
		}
		rest := readAll(conn)
		all := append(bytes.Clone(toPlayer), rest...)
		if c.compression && !bytes.HasPrefix(all, mc.AppendFrame(nil, mc.SetCompressionID, mc.AppendVarInt(nil, 256))) {
			t.Fatalf("the player does not get Set Compression first: % x", all[:min(len(all), 8)])
		}
		want := []int32{mc.LoginDisconnectID}
		if c.ok {
			want = []int32{mc.LoginSuccessID}
		}
		if c.compression {
			want = append([]int32{mc.SetCompressionID}, want...)
		}
		if ids := packetIDs(t, all); !slices.Equal(ids, want) {
			t.Fatalf("compression %v secret %s: the player gets packets %v, want %v", c.compression, c.secret, ids, want)
		}
		conn.Close()
	}
}

// packetIDs are the ids of the login frames in b; after Set Compression a body starts with its
// data length (0 here: nothing is compressed).
func packetIDs(t *testing.T, b []byte) []int32 {
	var ids []int32
	compressed := false
	for len(b) > 0 {
		body, n, err := mc.ReadFrame(b, mc.MaxFrameLen)
		if err != nil {
			t.Fatalf("frames: %v", err)
		}
		if compressed {
			body = body[1:]
		}
		id, _, _ := mc.PacketID(body)
		ids = append(ids, id)
		compressed = compressed || id == mc.SetCompressionID
		b = b[n:]
	}
	return ids
}

func readAll(c net.Conn) []byte {
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return out
		}
	}
}
