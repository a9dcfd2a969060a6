package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// flipDialer dials TCP and flips one bit of the byte at offset `at` of what the client reads:
// a relay that corrupts the stream.
type flipDialer struct {
	TCPDialer
	at int64
}

func (d flipDialer) Dial(ctx context.Context) (Stream, error) {
	s, err := d.TCPDialer.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return &flipStream{Stream: s, at: d.at}, nil
}

type flipStream struct {
	Stream
	at, read int64
}

func (f *flipStream) Read(p []byte) (int, error) {
	n, err := f.Stream.Read(p)
	if i := f.at - f.read; i >= 0 && i < int64(n) {
		p[i] ^= 0x10
	}
	f.read += int64(n)
	return n, err
}

func TestCorruptedByteIsAValidationError(t *testing.T) {
	be := startBackend(t)
	burst := int64(len(traffic.Modded().LoginBurst().Bytes))
	for _, c := range []struct {
		stage string
		at    int64
	}{{"login", 3}, {"login burst", 200 + burst/2}, {"round trip", 200 + burst + 5000}} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := play(ctx, flipDialer{TCPDialer{Addr: be.Addr()}, c.at}, traffic.Modded(), 50)
		cancel()
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Stage != c.stage {
			t.Errorf("flip at %d: err = %v, want a %s validation error", c.at, err, c.stage)
		}
	}
}

func TestCleanStreamValidates(t *testing.T) {
	be := startBackend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := play(ctx, TCPDialer{Addr: be.Addr()}, traffic.Modded(), 50); err != nil {
		t.Fatal(err)
	}
}

// play logs in and runs n round trips.
func play(ctx context.Context, d Dialer, p traffic.Profile, n uint64) error {
	s, _, err := Login(ctx, d, p, "flip", false)
	if err != nil {
		return err
	}
	defer s.Close()
	_, _, err = s.Run(ctx, 0, n, 4, nil)
	return err
}

// startBackend runs a modded backend until the test ends.
func startBackend(t *testing.T) *backend.Server {
	t.Helper()
	be, err := backend.Listen("127.0.0.1:0", traffic.Modded(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	return be
}
