package bridge

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/ws"
)

// startOfferBridge runs a bridge with early data whose dials only record what they would offer
// (then fail: the game is told the server is unreachable), waiting wait for the packet behind
// the handshake. Its hello wait is an hour, so that only wait ends the wait.
func startOfferBridge(t *testing.T, wait time.Duration) (*Bridge, <-chan []byte) {
	t.Helper()
	offers := make(chan []byte, 4)
	b, err := New(Config{Listen: "127.0.0.1:0", Remote: ws.DialConfig{URL: "ws://play.example.test/mc"}, EarlyData: true,
		HelloTimeout: time.Hour, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	b.nextWait = wait
	b.dial = func(_ context.Context, cfg ws.DialConfig) (*ws.Conn, error) {
		offers <- cfg.EarlyData
		return nil, errors.New("test: no server")
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, offers
}

// writeApart writes each part with its own write, gap apart.
func writeApart(t *testing.T, b *Bridge, gap time.Duration, parts ...[]byte) {
	t.Helper()
	game := dialGame(t, b)
	for i, p := range parts {
		if i > 0 {
			time.Sleep(gap)
		}
		if _, err := game.Write(p); err != nil {
			t.Fatal(err)
		}
	}
}

func loginStart(name string) []byte { return mc.AppendFrame(nil, 0x00, mc.AppendString(nil, name)) }

// A game that writes its handshake and then, 50 ms later, the packet behind it (vanilla's two
// writes, further apart than they ever are) has both offered: the bridge read the handshake
// alone and waited for the rest, also when that comes in pieces.
func TestEarlyDataWaitsForThePacketBehindTheHandshake(t *testing.T) {
	const gap = 50 * time.Millisecond
	ls := loginStart("Steve")
	for _, tc := range []struct {
		name  string
		parts [][]byte
	}{
		{"login start", [][]byte{handshake(mc.NextLogin), ls}},
		{"transfer", [][]byte{handshake(mc.NextTransfer), ls}},
		{"status request", [][]byte{handshake(mc.NextStatus), {0x01, 0x00}}},
		{"login start in pieces", [][]byte{handshake(mc.NextLogin), ls[:1], ls[1:4], ls[4:]}},
		{"a long login start, its length in pieces", [][]byte{handshake(mc.NextLogin), bigFrame(300)[:1], bigFrame(300)[1:]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, offers := startOfferBridge(t, testTimeout)
			writeApart(t, b, gap, tc.parts...)
			if got, want := receive(t, offers, "dial"), bytes.Join(tc.parts, nil); !bytes.Equal(got, want) {
				t.Errorf("offered % x, want the handshake and the packet behind it, % x", got, want)
			}
		})
	}
}

// bigFrame is a frame of size bytes whose length takes two bytes.
func bigFrame(size int) []byte {
	return mc.AppendFrame(nil, 0x00, bytes.Repeat([]byte{'x'}, size-3))
}

// A game that sends its handshake and nothing more, or only part of the packet behind it, is
// upgraded once the wait is over, with what it sent.
func TestEarlyDataWaitEnds(t *testing.T) {
	const wait = 150 * time.Millisecond
	for _, tc := range []struct {
		name string
		sent []byte
	}{
		{"nothing behind the handshake", handshake(mc.NextLogin)},
		{"part of login start", append(handshake(mc.NextLogin), loginStart("Steve")[:3]...)},
		{"part of a length", append(handshake(mc.NextStatus), 0x80)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, offers := startOfferBridge(t, wait)
			started := time.Now()
			writeApart(t, b, 0, tc.sent)
			if got := receive(t, offers, "dial"); !bytes.Equal(got, tc.sent) {
				t.Errorf("offered % x, want what the game sent, % x", got, tc.sent)
			}
			if waited := time.Since(started); waited < wait/2 {
				t.Errorf("dialed after %s, before the wait of %s was over", waited, wait)
			}
		})
	}
}

// A packet behind the handshake that an offer has no room for, or that is not a frame, is not
// waited for: the bridge dials at once with what it has, although the wait is an hour.
func TestEarlyDataDoesNotWaitForWhatWouldNotFit(t *testing.T) {
	hs := handshake(mc.NextLogin)
	room := ws.MaxEarlyData - len(hs)
	over := bigFrame(room + 1)
	for _, tc := range []struct {
		name string
		sent []byte
	}{
		{"one byte over the room", slices.Concat(hs, over[:room/2])},
		{"its length says so", slices.Concat(hs, over[:2])},
		{"not a length", slices.Concat(hs, []byte{0x80, 0x00})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, offers := startOfferBridge(t, time.Hour)
			writeApart(t, b, 0, tc.sent)
			if got := receive(t, offers, "dial"); !bytes.Equal(got, tc.sent) {
				t.Errorf("offered % x, want what the game sent, % x", got, tc.sent)
			}
		})
	}
	t.Run("exactly the room", func(t *testing.T) {
		b, offers := startOfferBridge(t, testTimeout)
		fits := bigFrame(room)
		writeApart(t, b, 50*time.Millisecond, hs, fits[:2], fits[2:])
		if got := receive(t, offers, "dial"); len(got) != ws.MaxEarlyData {
			t.Errorf("offered %d bytes, want the handshake and the whole frame, %d", len(got), ws.MaxEarlyData)
		}
	})
}

// A login written as vanilla writes it, the handshake and Login Start apart, joins through
// serve with early data and the bridge's own wait, and the session relays on.
func TestTwoWriteLoginThroughServe(t *testing.T) {
	addr := startServeWith(t, relay.WS, "", selfSigned(t, time.Hour, "127.0.0.1"), startBackend(t), func(c *relay.Config) {
		c.Listeners[0].EarlyData = 2048
	})
	b, lines := startModesBridge(t, ws.DialConfig{URL: "ws://" + addr + "/mc", Conn: ws.DefaultConfig()}, true, false)
	request := login.AppendRequest(nil, gameHost, 25565, "Steve")
	_, n, err := mc.ReadFrame(request, len(request))
	if err != nil {
		t.Fatal(err)
	}
	game := dialGame(t, b)
	if _, err := game.Write(request[:n]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if _, err := game.Write(request[n:]); err != nil {
		t.Fatal(err)
	}
	readLoginAnswer(t, game, "Steve")
	echoCheck(t, game, 64<<10)
	waitForLine(t, lines, `"message":"server connected"`, `"early_data":"used"`)
}
