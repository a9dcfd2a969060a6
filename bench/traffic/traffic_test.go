package traffic

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/moonbridge/moonbridge/mc"
)

// answer feeds the request's frames to a backend answerer and returns what it sends back.
func answer(t *testing.T, a Answerer, req []byte) ([]byte, error) {
	t.Helper()
	var out []byte
	for len(req) > 0 {
		body, n, err := mc.ReadFrame(req, mc.MaxFrameLen)
		if err != nil {
			t.Fatalf("request does not split into frames: %v", err)
		}
		if out, err = a.Answer(out, req[:n], body); err != nil {
			return out, err
		}
		req = req[n:]
	}
	return out, nil
}

func TestBackendAnswersWhatTheClientExpects(t *testing.T) {
	echo, err := NewEcho(100, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Profile{echo, Modded()} {
		a := p.NewAnswerer()
		var req Request
		for seq := range uint64(600) { // more than the 256 templates
			p.Request(seq, &req)
			got, err := answer(t, a, req.Bytes)
			if err != nil {
				t.Fatalf("%s tick %d: %v", p.Name(), seq, err)
			}
			want, _ := p.Response(nil, seq)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s tick %d: answer differs from the client's expectation", p.Name(), seq)
			}
		}
	}
}

func TestModdedShape(t *testing.T) {
	packets, size := Modded().Shape()
	if got := fmt.Sprintf("%.2f %.0f", packets, size); got != "10.27 6087" {
		t.Errorf("mean answer %s, want 10.27 packets and 6087 bytes (the seed's 10.2 and 6.1 KB)", got)
	}
	burst := Modded().LoginBurst()
	if burst.Frames != 70 || len(burst.Bytes) < 70*30000 || len(burst.Bytes) > 70*30100 {
		t.Errorf("login burst %d frames, %d bytes; want 70 x 30,000-byte payloads", burst.Frames, len(burst.Bytes))
	}
}

func TestModdedRequestUnitsAreThePackets(t *testing.T) {
	var req Request
	Modded().Request(7, &req)
	if req.Frames != 3 || len(req.Units) != 3 || req.Units[2] != len(req.Bytes) {
		t.Fatalf("request %+v", req)
	}
	start := 0
	for i, end := range req.Units {
		if _, n, err := mc.ReadFrame(req.Bytes[start:end], mc.MaxFrameLen); err != nil || n != end-start {
			t.Errorf("unit %d is not exactly one frame: n=%d err=%v", i, n, err)
		}
		start = end
	}
}

func TestEveryClientboundPacketCarriesTheTick(t *testing.T) {
	const seq = 0x0102030405060708
	for i := range templateCount {
		tpl := &Modded().templates[i]
		b := tpl.stamp(nil, seq)
		if len(tpl.seqAt) != tpl.frames {
			t.Fatalf("template %d: %d frames, %d sequence slots", i, tpl.frames, len(tpl.seqAt))
		}
		for _, at := range tpl.seqAt {
			if !bytes.Equal(b[at:at+seqLen], []byte{1, 2, 3, 4, 5, 6, 7, 8}) {
				t.Fatalf("template %d: no sequence at %d", i, at)
			}
		}
	}
}

func TestModdedAnswererRefusesSkippedTick(t *testing.T) {
	a := Modded().NewAnswerer()
	var req Request
	Modded().Request(0, &req)
	if _, err := answer(t, a, req.Bytes); err != nil {
		t.Fatal(err)
	}
	Modded().Request(2, &req) // tick 1 skipped
	var se *SequenceError
	if _, err := answer(t, a, req.Bytes); !errors.As(err, &se) {
		t.Errorf("skipped tick: err = %v, want *SequenceError", err)
	}
}

func TestModdedAnswererRefusesWrongOrder(t *testing.T) {
	a := Modded().NewAnswerer()
	var req Request
	Modded().Request(0, &req)
	second := req.Bytes[req.Units[0]:req.Units[1]] // C04 before C17
	var se *SequenceError
	if _, err := answer(t, a, second); !errors.As(err, &se) {
		t.Errorf("C04 first: err = %v, want *SequenceError", err)
	}
}

func TestByName(t *testing.T) {
	if _, err := ByName("echo", 8, 1); err == nil {
		t.Error("echo payload below the id and sequence accepted")
	}
	if _, err := ByName("vanilla", 1024, 1); err == nil {
		t.Error("unknown profile accepted")
	}
}
