package traffic

import (
	"encoding/binary"
	"fmt"

	"github.com/moonbridge/moonbridge/mc"
)

// echoPacketID is C17, a custom payload: the kind of packet a relay must pass on untouched. It
// fits one VarInt byte, so a frame body is exactly payload bytes.
const echoPacketID = 0x17

// minEchoPayload is a frame body that holds the packet id and the 8-byte sequence.
const minEchoPayload = 1 + 8

// Echo sends burst frames of payload body bytes per round trip and expects them back.
type Echo struct {
	payload, burst int
	filler         []byte
}

// NewEcho checks the sizes and returns the echo profile.
func NewEcho(payload, burst int) (*Echo, error) {
	if payload < minEchoPayload || burst < 1 {
		return nil, fmt.Errorf("traffic echo: payload %d (min %d) and burst %d (min 1)", payload, minEchoPayload, burst)
	}
	return &Echo{payload: payload, burst: burst, filler: pattern(payload - minEchoPayload)}, nil
}

func (e *Echo) Name() string { return "echo" }

func (e *Echo) LoginBurst() Burst { return Burst{} }

// Request writes the burst as one unit: --burst N means N frames in one client write.
func (e *Echo) Request(seq uint64, r *Request) {
	r.Bytes = e.appendBurst(r.Bytes[:0], seq)
	r.Units = append(r.Units[:0], len(r.Bytes))
	r.Frames = e.burst
}

// Response is the request itself: the backend echoes every frame.
func (e *Echo) Response(dst []byte, seq uint64) ([]byte, int) {
	return e.appendBurst(dst, seq), e.burst
}

func (e *Echo) appendBurst(b []byte, seq uint64) []byte {
	for i := range e.burst {
		// Built in place rather than with mc.AppendFrame: the client's CPU shares the machine
		// with the proxy, so it builds frames without allocating.
		b = mc.AppendVarInt(b, int32(e.payload))
		b = append(b, echoPacketID)
		b = binary.BigEndian.AppendUint64(b, seq*uint64(e.burst)+uint64(i))
		b = append(b, e.filler...)
	}
	return b
}

func (e *Echo) NewAnswerer() Answerer { return echoAnswerer{} }

type echoAnswerer struct{}

func (echoAnswerer) Answer(dst, frame, _ []byte) ([]byte, error) { return append(dst, frame...), nil }
