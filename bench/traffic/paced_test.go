package traffic

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/mc"
)

func paced(t *testing.T, name string) *Paced {
	t.Helper()
	p, err := PacedByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// frames splits a run of whole frames.
func frames(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(b) > 0 {
		_, n, err := mc.ReadFrame(b, mc.MaxFrameLen)
		if err != nil {
			t.Fatalf("not whole frames: %v", err)
		}
		out, b = append(out, b[:n]), b[n:]
	}
	return out
}

func TestPacedRatesAreTheIssues(t *testing.T) {
	cases := []struct {
		name string
		want string // up packets/s, up B/s, down packets/s, down B/s
	}{
		{"idle", "1.5 24 1 6"},
		{"play", "11 526 21 5045"},
	}
	for _, c := range cases {
		up, upB, down, downB := paced(t, c.name).Rates()
		if got := fmt.Sprintf("%.3g %.0f %.3g %.0f", up, upB, down, downB); got != c.want {
			t.Errorf("%s: rates %s, want %s", c.name, got, c.want)
		}
	}
	if _, err := PacedByName("join"); err == nil {
		t.Error("join is a ladder scenario (idle traffic), not paced traffic of its own")
	}
}

func TestUpScheduleIsTimedAndAnswered(t *testing.T) {
	for _, name := range []string{"idle", "play"} {
		p := paced(t, name)
		s, a := p.Up("mbbench00007"), p.NewAnswerer()
		var last time.Duration
		probes, packets := 0, 0
		for {
			ev := s.Next(nil)
			if ev.At > 10*time.Second {
				break
			}
			if ev.At < last {
				t.Fatalf("%s: event at %v after one at %v", name, ev.At, last)
			}
			last = ev.At
			answer, err := answer(t, a, ev.Bytes)
			if err != nil {
				t.Fatalf("%s at %v: %v", name, ev.At, err)
			}
			if ev.Probe {
				probes++
				// answer[0] is the 1-byte length.
				if id, ok := KeepAliveID(answer[1:]); !ok || id != ev.ProbeID {
					t.Errorf("%s: probe %d answered with % x", name, ev.ProbeID, answer)
				}
			} else {
				packets++
			}
		}
		if wantPackets := int(10 * time.Second / p.upEvery); probes != 10 || packets != wantPackets {
			t.Errorf("%s: %d probes and %d packets in 10 s, want 10 and %d", name, probes, packets, wantPackets)
		}
	}
}

func TestPacedAnswererRefusesASkippedPacket(t *testing.T) {
	p := paced(t, "play")
	a := p.NewAnswerer()
	if _, err := answer(t, a, p.up(nil, 1)); !errors.As(err, new(*SequenceError)) {
		t.Errorf("packet 1 first: err = %v, want *SequenceError", err)
	}
}

func TestDownStreamChecksByteForByte(t *testing.T) {
	p := paced(t, "play")
	s, check := p.Down("mbbench00003"), p.NewDownCheck("mbbench00003")
	chunkTicks := 0
	for range 2 * playChunkEvery {
		ev := s.Next(nil)
		fs := frames(t, ev.Bytes)
		if len(fs) > 1 {
			chunkTicks++
		}
		for _, f := range fs {
			if err := check.Frame(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if chunkTicks != 2 {
		t.Errorf("%d chunk bursts in %d ticks, want 2", chunkTicks, 2*playChunkEvery)
	}
	bad := bytes.Clone(frames(t, s.Next(nil).Bytes)[0])
	bad[len(bad)-1] ^= 1
	if err := check.Frame(bad); !errors.As(err, new(*SequenceError)) {
		t.Errorf("flipped byte: err = %v, want *SequenceError", err)
	}
}

func TestIdleSendsNothingDown(t *testing.T) {
	p := paced(t, "idle")
	if p.Down("x") != nil {
		t.Error("idle has a down schedule")
	}
	if err := p.NewDownCheck("x").Frame(appendTickPosition(nil, 0)); err == nil {
		t.Error("idle accepted a frame that is not a keepalive")
	}
}
