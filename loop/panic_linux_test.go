package loop

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

// panickyCodec is a side's codec with a bug: Open panics on a '!', Tick on its first tick.
type panickyCodec struct {
	Identity
	period time.Duration // 0: no ticks
}

func (panickyCodec) Open(in []byte) (int, []byte, error) {
	if bytes.IndexByte(in, '!') >= 0 {
		panic("codec bug")
	}
	return len(in), nil, nil
}

func (c panickyCodec) Period() time.Duration { return c.period }

func (panickyCodec) Tick(TickState) ([]byte, error) { panic("tick bug") }

// roundTrip sends a message each way through p and checks it arrives.
func roundTrip(t *testing.T, p *pair, msg string) {
	t.Helper()
	for _, dir := range [][2]io.ReadWriter{{p.player, p.backend}, {p.backend, p.player}} {
		if _, err := dir[0].Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		p.player.SetReadDeadline(time.Now().Add(waitFor))
		p.backend.SetReadDeadline(time.Now().Add(waitFor))
		if _, err := io.ReadFull(dir[1], got); err != nil || string(got) != msg {
			t.Fatalf("relayed %q, %v; want %q", got, err, msg)
		}
	}
}

// A panic in one session's work on a loop (its codec's Open or Tick, a Send's fill) ends that
// session with a *PanicError, counts in Stats, and leaves the loop and its other sessions
// relaying.
func TestPanicEndsOnlyItsSession(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tweak func(*Spec)
		cause func(*pair)
		value string
	}{
		{"open", func(s *Spec) { s.Client.Codec = panickyCodec{} }, func(p *pair) { p.player.Write([]byte("boom!")) }, "codec bug"},
		{"tick", func(s *Spec) { s.Client.Codec = panickyCodec{period: 10 * time.Millisecond} }, func(*pair) {}, "tick bug"},
		{"send", nil, func(p *pair) { p.sess.Send(func() []byte { panic("fill bug") }) }, "fill bug"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, Config{Loops: 1})
			ls := newListeners(t)
			good := ls.open(t, e, nil)
			roundTrip(t, good, "before")
			bad := ls.open(t, e, tc.tweak)
			tc.cause(bad)
			var pe *PanicError
			if r := bad.result(t); !errors.As(r.Err, &pe) || pe.Value != tc.value || !bytes.Contains(pe.Stack, []byte("panic")) {
				t.Fatalf("close reason %v (%T), want a *PanicError of %q with its stack", r.Err, r.Err, tc.value)
			}
			readAll(t, bad.player) // closed: EOF
			roundTrip(t, good, "after")
			if s := e.Stats(); s.Panics != 1 || s.Sessions != 1 {
				t.Fatalf("stats %+v, want 1 panic and the good session alone", s)
			}
		})
	}
}
