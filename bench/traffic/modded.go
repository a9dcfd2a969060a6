package traffic

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/moonbridge/moonbridge/mc"
)

// Serverbound packet ids of a client tick (1.7.10 numbering).
const (
	idClientPayload  = 0x17 // C17: a mod's custom payload
	idClientPosition = 0x04 // C04: position
	idClientOnGround = 0x03 // C03: on-ground flag
)

// tickPayloadLen is the data of the tick's C17: the sequence and a few bytes of mod state.
const tickPayloadLen = seqLen + 24

// ModdedProfile is the modded profile; it is immutable and shared by clients and the backend.
type ModdedProfile struct {
	templates []template
	burst     Burst
	filler    []byte
}

var moddedOnce = sync.OnceValue(func() *ModdedProfile {
	return &ModdedProfile{templates: buildTemplates(), burst: buildLoginBurst(), filler: pattern(tickPayloadLen - seqLen)}
})

// Modded returns the modded profile, built once per process (about 1.6 MB of templates).
func Modded() *ModdedProfile { return moddedOnce() }

func (m *ModdedProfile) Name() string { return "modded" }

func (m *ModdedProfile) LoginBurst() Burst { return m.burst }

// Shape is the mean answer of the 256 templates: packets and bytes per tick.
func (m *ModdedProfile) Shape() (packets, bytes float64) {
	for _, t := range m.templates {
		packets += float64(t.frames)
		bytes += float64(len(t.blob))
	}
	return packets / templateCount, bytes / templateCount
}

// Request writes the client tick's three packets, each its own unit: the released client mod
// flushes every packet.
func (m *ModdedProfile) Request(seq uint64, r *Request) {
	b, units := r.Bytes[:0], r.Units[:0]
	b = appendTickPayload(b, seq, m.filler)
	units = append(units, len(b))
	b = appendTickPosition(b, seq)
	units = append(units, len(b))
	b = mc.AppendFrame(b, idClientOnGround, []byte{1})
	units = append(units, len(b))
	r.Bytes, r.Units, r.Frames = b, units, len(units)
}

// Response is template seq mod 256 with seq stamped into every packet.
func (m *ModdedProfile) Response(dst []byte, seq uint64) ([]byte, int) {
	tpl := &m.templates[seq%templateCount]
	return tpl.stamp(dst, seq), tpl.frames
}

// appendTickPayload appends the tick's C17: channel, data length, the sequence, mod state.
func appendTickPayload(dst []byte, seq uint64, filler []byte) []byte {
	var fields [64]byte
	f := mc.AppendString(fields[:0], tickChannel)
	f = binary.BigEndian.AppendUint16(f, tickPayloadLen)
	f = binary.BigEndian.AppendUint64(f, seq)
	return mc.AppendFrame(dst, idClientPayload, append(f, filler...))
}

// appendTickPosition appends the tick's C04; x holds the sequence so the backend can check it.
func appendTickPosition(dst []byte, seq uint64) []byte {
	var fields [64]byte
	f := binary.BigEndian.AppendUint64(fields[:0], math.Float64bits(float64(seq)))
	for _, v := range []float64{64, 65.62, 8.5} { // feet y, head y, z
		f = binary.BigEndian.AppendUint64(f, math.Float64bits(v))
	}
	return mc.AppendFrame(dst, idClientPosition, append(f, 1))
}

func (m *ModdedProfile) NewAnswerer() Answerer { return &moddedAnswerer{profile: m} }

// moddedAnswerer checks that ticks arrive whole and in order (C17 n, C04 n, C03; n from 0 up)
// and answers each C03 with tick n's template.
type moddedAnswerer struct {
	profile *ModdedProfile
	next    uint64 // the tick expected next
	step    int    // packets of the current tick seen
}

var tickOrder = [...]int32{idClientPayload, idClientPosition, idClientOnGround}

func (a *moddedAnswerer) Answer(dst, _, body []byte) ([]byte, error) {
	id, fields, err := mc.PacketID(body)
	if err != nil {
		return dst, err
	}
	if id != tickOrder[a.step] {
		return dst, a.fail("packet %#x at step %d of tick %d, want %#x", id, a.step, a.next, tickOrder[a.step])
	}
	if err := a.checkSeq(id, fields); err != nil {
		return dst, err
	}
	a.step++
	if a.step < len(tickOrder) {
		return dst, nil
	}
	dst, _ = a.profile.Response(dst, a.next)
	a.step = 0
	a.next++
	return dst, nil
}

// checkSeq compares the sequence carried by C17 and C04 with the tick expected.
func (a *moddedAnswerer) checkSeq(id int32, fields []byte) error {
	got, carries, bad := carriedSeq(id, fields)
	switch {
	case bad != "":
		return a.fail("%s", bad)
	case carries && got != a.next:
		return a.fail("packet %#x carries tick %d, want %d", id, got, a.next)
	}
	return nil
}

// carriedSeq reads the sequence a tick's C17 or C04 carries; carries is false for other packets,
// bad says why a C17 or C04 is malformed.
func carriedSeq(id int32, fields []byte) (seq uint64, carries bool, bad string) {
	switch id {
	case idClientPayload:
		at := 1 + len(tickChannel) + 2
		if len(fields) != at+tickPayloadLen {
			return 0, false, fmt.Sprintf("C17 of %d bytes", len(fields))
		}
		return binary.BigEndian.Uint64(fields[at:]), true, ""
	case idClientPosition:
		if len(fields) != 4*8+1 {
			return 0, false, fmt.Sprintf("C04 of %d bytes", len(fields))
		}
		return uint64(math.Float64frombits(binary.BigEndian.Uint64(fields))), true, ""
	}
	return 0, false, ""
}

func (a *moddedAnswerer) fail(format string, args ...any) error {
	return &SequenceError{Profile: "modded", Detail: fmt.Sprintf(format, args...)}
}
