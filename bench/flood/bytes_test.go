package flood

import (
	"bufio"
	"bytes"
	"errors"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/moonbridge/moonbridge/mc"
)

func TestGarbageIsNoListenerProtocol(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		b := Garbage(rng)
		if b[0] == 0x16 || bytes.HasPrefix(b, []byte("GET ")) || b[0] == 0xfe {
			t.Fatalf("garbage starts like TLS, HTTP or a legacy ping: % x", b[:4])
		}
		if _, _, err := mc.ParseHello(b, 0); err == nil || errors.Is(err, mc.ErrNeedMore) {
			t.Fatalf("garbage % x parses as Minecraft (err %v)", b[:8], err)
		}
	}
}

func TestMalformedHandshakesAreRefusedNotIncomplete(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	for range 60 {
		b := Malformed(rng, "flood.test")
		_, _, err := mc.ParseHandshake(b, 0)
		if err == nil || errors.Is(err, mc.ErrNeedMore) {
			t.Fatalf("malformed % x: err %v, want a parse error", b, err)
		}
		seen[err.Error()] = true
	}
	if len(seen) != len(malformedKinds) {
		t.Errorf("%d distinct errors over 60 handshakes, want one per kind (%d): %v", len(seen), len(malformedKinds), seen)
	}
}

func TestPingIsHandshakeStatusRequestAndPing(t *testing.T) {
	b := Ping("flood.test", 0x0102030405060708)
	h, n, err := mc.ParseHandshake(b, 0)
	if err != nil || h.NextState != mc.NextStatus || h.Host != "flood.test" {
		t.Fatalf("handshake %+v, %v", h, err)
	}
	req, m, err := mc.ParseStatusPacket(b[n:])
	if err != nil || req.Ping {
		t.Fatalf("status request %+v, %v", req, err)
	}
	ping, k, err := mc.ParseStatusPacket(b[n+m:])
	if err != nil || !ping.Ping || ping.Payload != [8]byte{1, 2, 3, 4, 5, 6, 7, 8} || n+m+k != len(b) {
		t.Fatalf("ping %+v, %v; %d of %d bytes", ping, err, n+m+k, len(b))
	}
}

func TestLoginCarriesTheRandomName(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		name := RandomName(rng)
		if len(name) < 3 || len(name) > 16 {
			t.Fatalf("name %q: want 3 to 16 characters", name)
		}
		b := Login("online.flood", name)
		h, n, err := mc.ParseHandshake(b, 0)
		if err != nil || h.NextState != mc.NextLogin || h.Host != "online.flood" {
			t.Fatalf("handshake %+v, %v", h, err)
		}
		got, m, err := mc.ParsePlayerName(b[n:])
		if err != nil || got != name || n+m != len(b) {
			t.Fatalf("login start: %q, %v; want %q", got, err, name)
		}
	}
}

func TestUpgradeRequestParsesWithItsToken(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	token := BadToken(rng)
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(UpgradeRequest("flood.test", "/locked", token))))
	if err != nil {
		t.Fatal(err)
	}
	if req.URL.Path != "/locked" || req.Header.Get("Upgrade") != "websocket" || req.Header.Get("Authorization") != "Bearer "+token {
		t.Errorf("request %s %s, headers %v", req.Method, req.URL, req.Header)
	}
	if bytes.Count([]byte(token), []byte(".")) != 2 {
		t.Errorf("token %q: want three dot-separated parts", token)
	}
}

func TestClientHelloIsOneTLSHandshakeRecord(t *testing.T) {
	b, err := ClientHello("flood.test")
	if err != nil {
		t.Fatal(err)
	}
	// Record type handshake (22), then the ClientHello message type (1).
	if len(b) < 50 || b[0] != 0x16 || b[5] != 0x01 || int(b[3])<<8|int(b[4]) != len(b)-5 {
		t.Errorf("client hello % x...: want one handshake record holding a ClientHello", b[:8])
	}
	if !bytes.Contains(b, []byte("flood.test")) {
		t.Error("client hello lacks the server name")
	}
}
