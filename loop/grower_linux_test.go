package loop

import (
	"bytes"
	"errors"
	"sync"
	"testing"
)

// markerCodec grows: Open puts growth marker bytes in front of what it was given, as a TLS
// codec puts a whole record's plaintext where only its tail was read. It fails when the loop
// left it less room than it asked for.
type markerCodec struct {
	Identity
	growth int
}

const marker = 0xFF

var errNoRoom = errors.New("Open was given less room than Growth")

func (c *markerCodec) Growth() int { return c.growth }

func (c *markerCodec) Open(in []byte) (int, []byte, error) {
	if cap(in)-len(in) < c.growth {
		return 0, nil, errNoRoom
	}
	n := len(in) + c.growth
	in = in[:n]
	copy(in[c.growth:], in[:n-c.growth])
	for i := range c.growth {
		in[i] = marker
	}
	return n, nil, nil
}

// TestGrowerGetsItsRoom: with a buffer of 1000 bytes and a codec that grows by 300, every read
// leaves the 300 bytes free, and every byte arrives (each read's behind its markers).
func TestGrowerGetsItsRoom(t *testing.T) {
	e := newEngine(t, Config{Loops: 1, BufferSize: 1000})
	p := newListeners(t).open(t, e, func(s *Spec) { s.Client.Codec = &markerCodec{growth: 300} })
	up := bytes.ReplaceAll(randomBytes(200_000, 3), []byte{marker}, []byte{0})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); writeChunks(p.player, up, 4); p.player.CloseWrite() }()
	got := readAll(t, p.backend)
	wg.Wait()
	p.backend.CloseWrite()
	markers := bytes.Count(got, []byte{marker})
	if data := bytes.ReplaceAll(got, []byte{marker}, nil); !bytes.Equal(data, up) || markers%300 != 0 {
		t.Fatalf("backend got %d data bytes (equal %v) and %d markers", len(data), bytes.Equal(data, up), markers)
	}
	if r := p.result(t); r.Err != nil {
		t.Fatalf("session ended with %v", r.Err)
	}
}

// TestGrowthAsBigAsTheBufferIsRefused: a codec that would leave nothing to read into.
func TestGrowthAsBigAsTheBufferIsRefused(t *testing.T) {
	e := newEngine(t, Config{Loops: 1, BufferSize: 1000})
	player, accepted, dialed, _ := newListeners(t).connect(t)
	defer player.Close()
	_, err := e.Register(Spec{Client: Side{Conn: accepted, Codec: &markerCodec{growth: 1000}}, Backend: Side{Conn: dialed}})
	var ge *GrowthError
	if !errors.As(err, &ge) || ge.Growth != 1000 || ge.BufferSize != 1000 {
		t.Fatalf("Register: %v, want a GrowthError", err)
	}
}
