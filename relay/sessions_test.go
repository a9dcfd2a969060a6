package relay

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern/playtest"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/bans"
)

// startPlayProxy runs a proxy over protocol with one route, "survival", in front of a 1.21
// backend, and joins one player, Steve, who is in play when it returns with its session.
func startPlayProxy(t *testing.T, protocol Protocol, edit func(*Config)) (*Server, *playtest.Client, SessionInfo) {
	t.Helper()
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.Routes[0].Name = "survival"
		if edit != nil {
			edit(c)
		}
	}, protocol)
	cl := joinThrough(t, protocol, addr, nil)
	var info SessionInfo
	testutil.WaitFor(t, "the player's session to be listed, in play", func() bool {
		for _, s := range srv.Sessions() {
			if s.Player == "Steve" && s.Relaying {
				info = s
				return true
			}
		}
		return false
	})
	return srv, cl, info
}

func TestSessionsListsAPlayer(t *testing.T) {
	srv, _, info := startPlayProxy(t, Minecraft, nil)
	if info.ID == "" || info.Route != "survival" || info.Transport != "minecraft" || !strings.HasPrefix(info.Client, "127.0.0.1:") {
		t.Errorf("listed %+v", info)
	}
	if info.UUID == "" || info.BytesUp == 0 || info.BytesDown == 0 || time.Since(info.Since) > time.Minute {
		t.Errorf("listed %+v: want the player's UUID, bytes both ways and its start", info)
	}
	if again, err := srv.Session(info.ID); err != nil || again.ID != info.ID {
		t.Errorf("Session(%s) = %+v, %v", info.ID, again, err)
	}
}

// A kick puts a Disconnect with the message into a 1.21 player's stream, and the session ends.
func TestKickSendsADisconnect(t *testing.T) {
	for _, protocol := range []Protocol{Minecraft, WS} {
		t.Run(string(protocol), func(t *testing.T) {
			srv, cl, info := startPlayProxy(t, protocol, nil)
			got, err := srv.Kick(info.ID, "Bye now\nsee you")
			if err != nil || !got.DisconnectSent {
				t.Fatalf("Kick: %+v, %v", got, err)
			}
			_, err = awaitTransfer(t, cl)
			var de *playtest.DisconnectError
			if !errors.As(err, &de) || de.Reason != "Bye now\nsee you" {
				t.Fatalf("the player saw %v, want the kick's Disconnect", err)
			}
			testutil.WaitFor(t, "the kicked session to end", func() bool { _, err := srv.Session(info.ID); return err != nil })
		})
	}
}

// A stream the proxy cannot put a packet in (a 1.20.4 client passed through) is closed, and the
// answer says no Disconnect went out.
func TestKickClosesAStreamWithoutRoom(t *testing.T) {
	back := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(back.addr()) }, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	conn.Write(mc.Handshake{Protocol: 765, Host: "localhost", Port: 25565, NextState: mc.NextLogin}.AppendFrame(nil, "localhost"))
	conn.Write([]byte("ping"))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	list := srv.Sessions()
	if len(list) != 1 {
		t.Fatalf("sessions %+v", list)
	}
	got, err := srv.Kick(list[0].ID, "Bye")
	if err != nil || got.DisconnectSent || got.Note == "" {
		t.Fatalf("Kick: %+v, %v; want closed without a Disconnect, and why", got, err)
	}
	if _, err := io.ReadAll(conn); err != nil && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "reset") {
		t.Errorf("after the kick the player's read: %v", err)
	}
}

func TestSessionActionsRefuseUnknownIDsAndBadInput(t *testing.T) {
	srv, _, info := startPlayProxy(t, Minecraft, nil)
	var unknown *UnknownSessionError
	for _, id := range []string{"999999", "", "abc", "-1", strings.Repeat("9", 10<<10)} {
		if _, err := srv.Kick(id, "x"); !errors.As(err, &unknown) {
			t.Errorf("Kick(%.20q): %v, want an UnknownSessionError", id, err)
		}
		if _, err := srv.TransferSession(id, "example.net", 25565); !errors.As(err, &unknown) {
			t.Errorf("TransferSession(%.20q): %v", id, err)
		}
	}
	var bad *bans.InputError
	for _, msg := range []string{"", strings.Repeat("x", 10<<10), "a\x1b[2Jb", "\xff"} {
		if _, err := srv.Kick(info.ID, msg); !errors.As(err, &bad) {
			t.Errorf("Kick with message %.20q: %v, want an InputError", msg, err)
		}
	}
	for _, c := range []struct {
		host string
		port uint16
	}{{"", 25565}, {"example.net", 0}, {strings.Repeat("a", 300), 25565}, {"bad\x00host", 25565}} {
		if _, err := srv.TransferSession(info.ID, c.host, c.port); !errors.As(err, &bad) {
			t.Errorf("TransferSession(%.20q, %d): %v, want an InputError", c.host, c.port, err)
		}
	}
	if _, err := srv.Session(info.ID); err != nil {
		t.Errorf("refused actions ended the session: %v", err)
	}
}

// One player is sent a Transfer to the address asked; a WebSocket player, whose client came
// through a CDN, cannot be sent to an address.
func TestTransferSessionMovesOnePlayer(t *testing.T) {
	srv, cl, info := startPlayProxy(t, Minecraft, nil)
	got, err := srv.TransferSession(info.ID, "lobby.example.net", 25570)
	if err != nil || !got.TransferSent || got.To != "lobby.example.net:25570" {
		t.Fatalf("TransferSession: %+v, %v", got, err)
	}
	if tr, err := awaitTransfer(t, cl); err != nil || tr.Host != "lobby.example.net" || tr.Port != 25570 {
		t.Fatalf("the player: %+v, %v", tr, err)
	}
	wsSrv, _, wsInfo := startPlayProxy(t, WS, nil)
	var nm *NotMovableError
	if _, err := wsSrv.TransferSession(wsInfo.ID, "lobby.example.net", 25570); !errors.As(err, &nm) {
		t.Errorf("a WebSocket player's transfer: %v, want a NotMovableError", err)
	}
}

// A new ban kicks the players online it matches, with the ban's message; others stay.
func TestKickBannedKicksTheMatchingPlayers(t *testing.T) {
	srv, cl, info := startPlayProxy(t, Minecraft, nil)
	other, _ := bans.Entry{Kind: bans.KindName, Value: "Alex"}.Ban(time.Now())
	if got := srv.KickBanned(other); len(got) != 0 {
		t.Errorf("a ban of another name kicked %+v", got)
	}
	b, _ := bans.Entry{Kind: bans.KindName, Value: "steve", Reason: "x-ray"}.Ban(time.Now())
	got := srv.KickBanned(b)
	if len(got) != 1 || got[0].ID != info.ID || !got[0].DisconnectSent {
		t.Fatalf("KickBanned: %+v", got)
	}
	_, err := awaitTransfer(t, cl)
	var de *playtest.DisconnectError
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "x-ray") {
		t.Fatalf("the player saw %v, want the ban's message", err)
	}
}
