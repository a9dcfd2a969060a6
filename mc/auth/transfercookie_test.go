package auth_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/play"
)

// goodCookie is a CookieChecker that believes one cookie for one player.
type goodCookie struct{}

func (goodCookie) Key() string { return "moonbridge:transfer" }

func (goodCookie) Verify(name string, cookie []byte) error {
	switch {
	case name == "Steve" && string(cookie) == "signed":
		return nil
	case string(cookie) == "shown before":
		return fmt.Errorf("cookie: %w", auth.ErrCookieReplayed)
	}
	return errors.New("not believed")
}

// cookieAnswer is a serverbound Cookie Response frame.
func cookieAnswer(key string, payload []byte) []byte {
	body := mc.AppendString(nil, key)
	if payload == nil {
		return mc.AppendFrame(nil, play.CookieResponseID, append(body, 0))
	}
	body = append(body, 1)
	body = mc.AppendVarInt(body, int32(len(payload)))
	return mc.AppendFrame(nil, play.CookieResponseID, append(body, payload...))
}

// TestTransferLoginIsAskedForItsCookie: after Login Start of a transfer login the player gets a
// Cookie Request for the checker's key, and what it answers decides Player.Cookie; a login that
// is no transfer is not asked.
func TestTransferLoginIsAskedForItsCookie(t *testing.T) {
	shape, _, _ := mc.LoginShapeOf(767)
	start := mc.AppendLoginStart(nil, shape, mc.LoginStart{Name: "Steve"})
	for _, c := range []struct {
		name     string
		transfer bool
		answer   []byte
		want     auth.Cookie
	}{
		{"valid", true, cookieAnswer("moonbridge:transfer", []byte("signed")), auth.CookieValid},
		{"forged", true, cookieAnswer("moonbridge:transfer", []byte("forged")), auth.CookieRejected},
		{"replayed", true, cookieAnswer("moonbridge:transfer", []byte("shown before")), auth.CookieReplayed},
		{"absent", true, cookieAnswer("moonbridge:transfer", nil), auth.CookieAbsent},
		{"another key", true, cookieAnswer("other:key", []byte("signed")), auth.CookieAbsent},
		{"no transfer", false, nil, auth.CookieNotAsked},
	} {
		var sent [][]byte
		pc := auth.PlayerConn{
			R:        bufio.NewReader(bytes.NewReader(append(append([]byte(nil), start...), c.answer...))),
			Send:     func(f []byte) error { sent = append(sent, bytes.Clone(f)); return nil },
			Transfer: c.transfer,
		}
		cfg := &auth.Config{TransferCookies: goodCookie{}}
		p, err := cfg.Login(context.Background(), pc, 767, "127.0.0.1")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Cookie != c.want {
			t.Errorf("%s: cookie %v, want %v", c.name, p.Cookie, c.want)
		}
		wantSent := [][]byte{play.AppendCookieRequest(nil, "moonbridge:transfer")}
		if !c.transfer {
			wantSent = nil
		}
		if len(sent) != len(wantSent) || len(sent) == 1 && !bytes.Equal(sent[0], wantSent[0]) {
			t.Errorf("%s: sent %x, want %x", c.name, sent, wantSent)
		}
	}
}

// TestMalformedCookieResponseIsRefused: an answer that is no Cookie Response ends the login with
// a disconnect that says so.
func TestMalformedCookieResponseIsRefused(t *testing.T) {
	shape, _, _ := mc.LoginShapeOf(767)
	in := mc.AppendLoginStart(nil, shape, mc.LoginStart{Name: "Steve"})
	in = mc.AppendFrame(in, play.CookieResponseID, []byte{0x7f}) // a key string cut short
	pc := auth.PlayerConn{R: bufio.NewReader(bytes.NewReader(in)), Send: func([]byte) error { return nil }, Transfer: true}
	_, err := (&auth.Config{TransferCookies: goodCookie{}}).Login(context.Background(), pc, 767, "127.0.0.1")
	var le *auth.LoginError
	if !errors.As(err, &le) || le.Outcome != auth.OutcomeBadPacket {
		t.Fatalf("login: %v, want a bad_packet refusal", err)
	}
}

// TestLoginTakesTheCookieTheRelayChecked: a transfer login whose cookie the relay checked
// before routing it (PlayerConn.Cookie) is not asked again: its verdict is the login's, and a
// second check would find the cookie replayed (believed once).
func TestLoginTakesTheCookieTheRelayChecked(t *testing.T) {
	shape, _, _ := mc.LoginShapeOf(767)
	var sent [][]byte
	pc := auth.PlayerConn{
		R:        bufio.NewReader(bytes.NewReader(mc.AppendLoginStart(nil, shape, mc.LoginStart{Name: "Steve"}))),
		Send:     func(f []byte) error { sent = append(sent, bytes.Clone(f)); return nil },
		Transfer: true,
		Cookie:   auth.CookieValid,
	}
	p, err := (&auth.Config{TransferCookies: goodCookie{}}).Login(context.Background(), pc, 767, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if p.Cookie != auth.CookieValid || len(sent) != 0 {
		t.Errorf("cookie %v, sent %x; want the relay's verdict, valid, and no Cookie Request", p.Cookie, sent)
	}
}
