package auth_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
)

// loginResult is what the proxy's side of a login returned.
type loginResult struct {
	player *auth.Player
	err    error
	conn   net.Conn // the proxy's end, to read what the player sends after the login
	r      *bufio.Reader
	sent   [][]byte // every frame the proxy sent, as it went on the wire
}

// runLogin runs cfg's Login on the accepting end of a loopback connection and p's login on the
// dialing end; it returns both sides' results.
func runLogin(t *testing.T, cfg *auth.Config, p authtest.Player) (loginResult, *authtest.Conn, error) {
	t.Helper()
	res, pc, err := tryLogin(t, cfg, p)
	if res.conn == nil { // the dial failed
		t.Fatal(err)
	}
	return res, pc, err
}

// tryLogin is runLogin that returns a failed dial (res.conn nil) instead of failing the test:
// it may run on a goroutine of its own.
func tryLogin(t *testing.T, cfg *auth.Config, p authtest.Player) (loginResult, *authtest.Conn, error) {
	t.Helper()
	results := make(chan loginResult, 1)
	ln, err := testutil.ServeAt(t, "127.0.0.1:0", func(c net.Conn) {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(c)
		hello, err := mc.ReadHello(r, 0)
		if err != nil {
			results <- loginResult{err: err, conn: c}
			return
		}
		var sent [][]byte
		send := func(frame []byte) error {
			sent = append(sent, bytes.Clone(frame))
			_, err := c.Write(frame)
			return err
		}
		player, err := cfg.Login(context.Background(), auth.PlayerConn{R: r, Send: send}, hello.Handshake.Protocol, "127.0.0.1")
		results <- loginResult{player: player, err: err, conn: c, r: r, sent: sent}
	})
	if err != nil {
		return loginResult{err: err}, nil, err
	}
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return loginResult{err: err}, nil, err
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { conn.Close() })
	pc, perr := p.Login(conn, "play.example.net")
	res := <-results
	t.Cleanup(func() { res.conn.Close() })
	return res, pc, perr
}

func onlineConfig(t *testing.T, ss *authtest.SessionServer) *auth.Config {
	return &auth.Config{Online: true, Keys: authtest.Keys(t), Sessions: auth.SessionServer{BaseURL: ss.URL, Timeout: 2 * time.Second}}
}

// shapeProtocols are one release per row of the login table, the first and the newest.
var shapeProtocols = []int32{4, 5, 47, 393, 735, 759, 760, 761, 764, 766, 768, 774}

// TestOnlineLoginEveryShape logs a player in for each distinct login shape, with and without a
// chat key where the version has one, and checks both ciphers carry a frame each way.
func TestOnlineLoginEveryShape(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	cfg := onlineConfig(t, ss)
	for _, protocol := range shapeProtocols {
		for _, chatKey := range []bool{false, true} {
			if chatKey && protocol != 759 && protocol != 760 {
				continue
			}
			res, pc, err := runLogin(t, cfg, authtest.Player{Name: "Alex", Protocol: protocol, Sessions: ss, ChatKey: chatKey})
			if err != nil || res.err != nil {
				t.Fatalf("protocol %d key %v: player %v, proxy %v", protocol, chatKey, err, res.err)
			}
			want := authfake.Profile("Alex")
			if res.player.Profile.ID != want.ID || res.player.Profile.Name != "Alex" || len(res.player.Profile.Properties) != 1 {
				t.Fatalf("protocol %d: profile %+v, want %+v", protocol, res.player.Profile, want)
			}
			checkCipher(t, res, pc)
		}
	}
}

// checkCipher sends a frame each way through the login's ciphers.
func checkCipher(t *testing.T, res loginResult, pc *authtest.Conn) {
	t.Helper()
	msg := []byte("\x06\x00hello")
	pc.Write(msg)
	got := make([]byte, len(msg))
	if _, err := ioReadFull(res.r, got); err != nil {
		t.Fatal(err)
	}
	res.player.Dec.XORKeyStream(got, got)
	if !bytes.Equal(got, msg) {
		t.Fatalf("player to proxy: % x, want % x", got, msg)
	}
	back := bytes.Clone(msg)
	res.player.Enc.XORKeyStream(back, back)
	res.conn.Write(back)
	body, err := pc.ReadFrame()
	if err != nil || string(body) != "\x00hello" {
		t.Fatalf("proxy to player: %q %v", body, err)
	}
}

func TestOfflineLogin(t *testing.T) {
	res, _, err := runLogin(t, &auth.Config{}, authtest.Player{Name: "Notch", Protocol: 47})
	if err != nil || res.err != nil {
		t.Fatal(err, res.err)
	}
	if got := res.player.Profile.ID.String(); got != "b50ad385-829d-3141-a216-7e7d7539ba7f" {
		t.Fatalf("offline UUID of Notch: %s", got)
	}
	if res.player.Enc != nil {
		t.Fatal("an offline login turned a cipher on")
	}
}

// TestOnlineLoginRefused: every way a login can fail ends in a LoginError with its outcome, and
// the player reads a disconnect that says why (decrypted when the cipher was on).
func TestOnlineLoginRefused(t *testing.T) {
	cases := []struct {
		name    string
		player  authtest.Player
		server  func(*authtest.SessionServer)
		outcome string
		says    string
	}{
		{"wrong verify token", authtest.Player{WrongToken: true}, nil, auth.OutcomeBadVerifyToken, "encryption answer"},
		{"not joined", authtest.Player{SkipJoin: true}, nil, auth.OutcomeNotAuthed, "Failed to verify username"},
		{"session server fails", authtest.Player{}, func(s *authtest.SessionServer) { s.SetStatus(http.StatusInternalServerError) },
			auth.OutcomeSessionServer, "cannot be reached"},
		{"session server slow", authtest.Player{}, func(s *authtest.SessionServer) { s.SetDelay(5 * time.Second) },
			auth.OutcomeSessionServer, "cannot be reached"},
		{"name mismatch", authtest.Player{}, func(s *authtest.SessionServer) { s.SetProfile("Alex", authfake.Profile("Steve")) },
			auth.OutcomeNameMismatch, "not the one you logged in with"},
		{"second login start", authtest.Player{SecondLoginStart: true}, nil, auth.OutcomeBadPacket, "out of order"},
		{"unknown version", authtest.Player{Protocol: 775}, nil, auth.OutcomeUnknownVersion, "1.21.11"},
		{"expired chat key", authtest.Player{Protocol: 760, ExpiredChatKey: true}, nil, auth.OutcomeExpiredKey, "Expired profile public key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ss := authtest.NewSessionServer(t)
			if c.server != nil {
				c.server(ss)
			}
			cfg := onlineConfig(t, ss)
			cfg.Sessions.Timeout = 300 * time.Millisecond
			p := c.player
			p.Name, p.Sessions = "Alex", ss
			if p.Protocol == 0 {
				p.Protocol = 767
			}
			res, pc, err := runLogin(t, cfg, p)
			var le *auth.LoginError
			if !errors.As(res.err, &le) || le.Outcome != c.outcome {
				t.Fatalf("proxy: %v, want outcome %s", res.err, c.outcome)
			}
			if err != nil {
				t.Fatalf("player: %v", err)
			}
			checkDisconnect(t, pc, c.says)
		})
	}
}

// checkDisconnect reads the login disconnect the player got and checks it says says.
func checkDisconnect(t *testing.T, pc *authtest.Conn, says string) {
	t.Helper()
	body, err := pc.ReadFrame()
	if err != nil {
		t.Fatalf("reading the disconnect: %v", err)
	}
	id, fields, _ := mc.PacketID(body)
	if id != mc.LoginDisconnectID || !strings.Contains(string(fields), says) {
		t.Fatalf("player got packet %#x %q, want a disconnect saying %q", id, fields, says)
	}
}

// TestSessionServerDown: a session server nobody listens on is a clear disconnect too.
func TestSessionServerDown(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	cfg := onlineConfig(t, ss)
	cfg.Sessions.BaseURL = "http://" + testutil.ClosedPort(t)
	res, pc, err := runLogin(t, cfg, authtest.Player{Name: "Alex", Protocol: 340, Sessions: ss})
	var le *auth.LoginError
	if err != nil || !errors.As(res.err, &le) || le.Outcome != auth.OutcomeSessionServer {
		t.Fatalf("player %v proxy %v", err, res.err)
	}
	checkDisconnect(t, pc, "cannot be reached")
}

// TestSendIP: with SendIP the session server is given the player's address.
func TestSendIP(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	cfg := onlineConfig(t, ss)
	cfg.SendIP = true
	if res, _, err := runLogin(t, cfg, authtest.Player{Name: "Alex", Protocol: 767, Sessions: ss}); err != nil || res.err != nil {
		t.Fatal(err, res.err)
	}
	if ips := ss.IPs(); len(ips) != 1 || ips[0] != "127.0.0.1" {
		t.Fatalf("ip parameters %q", ips)
	}
}

// TestBadSecretLooksLikeGoodOne: a shared secret that does not open (bad padding, or a block
// of the wrong size) gets the answer a secret that opens gets, with the same verify token:
// with a wrong token, the wrong token's refusal; with the right one, the session server's
// "not joined" (the client cannot have joined with a key it does not know). Both are sent
// encrypted, under a key a client with a bad secret cannot know, so that no answer tells a
// client anything about the RSA key's plaintext: no padding oracle.
func TestBadSecretLooksLikeGoodOne(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	cfg := onlineConfig(t, ss)
	answer := func(p authtest.Player) (outcome string, sent, clear []byte) {
		p.Name, p.Sessions, p.Protocol, p.SkipJoin = "Alex", ss, 767, true
		res, _, err := runLogin(t, cfg, p)
		if err != nil {
			t.Fatalf("player %+v: %v", p, err)
		}
		var le *auth.LoginError
		if !errors.As(res.err, &le) || len(res.sent) != 2 {
			t.Fatalf("proxy: %v after %d frames, want a refusal after the Encryption Request", res.err, len(res.sent))
		}
		return le.Outcome, res.sent[1], mc.AppendLoginDisconnect(nil, le.Message)
	}
	badSecrets := map[string]authtest.Player{
		"bad padding":    {BadPadding: true},
		"15-byte secret": {SecretSize: 15},
		"17-byte secret": {SecretSize: 17},
	}
	for _, wrongToken := range []bool{true, false} {
		wantOutcome, want, _ := answer(authtest.Player{WrongToken: wrongToken})
		for name, p := range badSecrets {
			p.WrongToken = wrongToken
			outcome, got, clear := answer(p)
			if outcome != wantOutcome {
				t.Errorf("%s, wrong token %v: outcome %s, a good secret's is %s", name, wrongToken, outcome, wantOutcome)
			}
			if len(got) != len(want) {
				t.Errorf("%s, wrong token %v: %d bytes of answer, a good secret gets %d", name, wrongToken, len(got), len(want))
			}
			if bytes.Equal(got, clear) {
				t.Errorf("%s, wrong token %v: the refusal came in the clear, a good secret's is encrypted", name, wrongToken)
			}
		}
	}
}
