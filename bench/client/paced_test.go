package client

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

func pacedBackend(t *testing.T, p *traffic.Paced, late func(time.Duration)) *backend.Server {
	t.Helper()
	be, err := backend.ListenWith("127.0.0.1:0", p, zerolog.Nop(), backend.Options{Late: late})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	return be
}

// TestPaceTimesKeepalivesAndChecksTicks plays each paced traffic until two keepalives came
// back; play's ticks come down meanwhile and are checked byte for byte.
func TestPaceTimesKeepalivesAndChecksTicks(t *testing.T) {
	for _, name := range []string{"idle", "play"} {
		p, _ := traffic.PacedByName(name)
		var backendWrites atomic.Int64
		be := pacedBackend(t, p, func(time.Duration) { backendWrites.Add(1) })
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		s, _, err := Login(ctx, TCPDialer{Addr: be.Addr()}, traffic.Modded(), "pace"+name, false)
		if err != nil {
			t.Fatal(err)
		}
		var rtts, writes atomic.Int64
		err = s.Pace(ctx, p, func(d time.Duration) {
			if d <= 0 || d > 30*time.Second {
				t.Errorf("%s: round trip %v", name, d)
			}
			if rtts.Add(1) == 2 {
				cancel()
			}
		}, func(time.Duration) { writes.Add(1) })
		if err != nil || rtts.Load() < 2 || writes.Load() < 2 {
			t.Errorf("%s: err %v after %d round trips and %d writes", name, err, rtts.Load(), writes.Load())
		}
		if got := backendWrites.Load(); (name == "play") != (got > 0) {
			t.Errorf("%s: the backend wrote %d scheduled ticks", name, got)
		}
		if be.Failures() != 0 {
			t.Errorf("%s: backend refused the session", name)
		}
		cancel()
	}
}

func TestPaceCatchesACorruptedTick(t *testing.T) {
	p, _ := traffic.PacedByName("play")
	be := pacedBackend(t, p, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Byte 10 after the login burst is inside the first tick's frame.
	at := int64(len(login.AppendAnswer(nil, "flip")) + len(p.LoginBurst().Bytes) + 10)
	s, _, err := Login(ctx, flipDialer{TCPDialer{Addr: be.Addr()}, at}, traffic.Modded(), "flip", false)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Pace(ctx, p, func(time.Duration) {}, func(time.Duration) {})
	if !errors.As(err, new(*traffic.SequenceError)) {
		t.Errorf("err = %v, want a *traffic.SequenceError", err)
	}
}

func TestDialFailureIsAConnectError(t *testing.T) {
	_, _, err := Login(context.Background(), TCPDialer{Addr: "127.0.0.1:1"}, traffic.Modded(), "x", false)
	if !errors.As(err, new(*ConnectError)) {
		t.Errorf("err = %v, want *ConnectError", err)
	}
}
