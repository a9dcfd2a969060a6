package traffic

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/mc"
)

// idKeepAlive is C00 and S00 in the play state (1.7.10): an int32 id, a 6-byte frame. The
// client sends one every second and the backend echoes it at once, which times the round
// trip as Minecraft's own keepalive does (there the server asks and the client answers).
const idKeepAlive = 0x00

// Paced traffic of mbbench ladder (rates and pacing in bench/README.md, "ladder"):
//
//	idle  up: a C04 movement every 2 s; down: nothing but the keepalive answers
//	play  up: a 52-byte C17 every 100 ms (10 packets, 0.5 KB/s); down: one S3F or S35 of
//	      20-600 B per 50 ms tick (20 packets, about 4.3 KB/s) and, every 800 ticks (40 s), a
//	      chunk burst of two S21 of 12-20 KiB, which brings the mean to about 5 KB/s
//
// Every player first logs in with the modded profile's 2.1 MB burst; every player sends a
// keepalive every second.
const (
	probeEvery                  = time.Second
	idleMoveEvery               = 2 * time.Second
	playUpEvery, playTickEvery  = 100 * time.Millisecond, 50 * time.Millisecond
	playTicks, playChunkEvery   = 64, 800
	playChunks                  = 2
	minPlayChunk, maxPlayChunk  = 12 << 10, 20 << 10
	playSeed                    = 14
	saltProbe, saltUp, saltDown = "probe", "up", "down"
)

// Paced is a scenario's traffic in time: what each side writes when, and how the client checks
// what comes down. It is immutable and shared by every session and the backend.
type Paced struct {
	name      string
	upEvery   time.Duration
	up        func(dst []byte, seq uint64) []byte
	downEvery time.Duration // 0: only keepalive answers come down
	ticks     []template
	chunk     template
}

var (
	idleOnce = sync.OnceValue(func() *Paced {
		return &Paced{name: "idle", upEvery: idleMoveEvery, up: appendTickPosition}
	})
	playOnce = sync.OnceValue(buildPlay)
)

// PacedByName is idle or play.
func PacedByName(name string) (*Paced, error) {
	switch name {
	case "idle":
		return idleOnce(), nil
	case "play":
		return playOnce(), nil
	}
	return nil, fmt.Errorf("traffic: unknown paced traffic %q (want idle or play)", name)
}

func buildPlay() *Paced {
	r := rand.New(rand.NewPCG(playSeed, playSeed))
	p := &Paced{name: "play", upEvery: playUpEvery, downEvery: playTickEvery, ticks: make([]template, playTicks)}
	filler := pattern(tickPayloadLen - seqLen)
	p.up = func(dst []byte, seq uint64) []byte { return appendTickPayload(dst, seq, filler) }
	for i := range p.ticks {
		p.ticks[i].add(appendSmall(nil, r))
	}
	for range playChunks {
		p.chunk.add(appendChunk(p.chunk.blob, r, between(r, minPlayChunk, maxPlayChunk)))
	}
	return p
}

func (p *Paced) Name() string { return p.name }

// LoginBurst is the modded profile's: every paced player has joined a modded server.
func (p *Paced) LoginBurst() Burst { return Modded().LoginBurst() }

// Rates are one player's mean packets and bytes per second each way, keepalives included.
func (p *Paced) Rates() (upPackets, upBytes, downPackets, downBytes float64) {
	keepalive := float64(len(appendKeepAlive(nil, 0))) / probeEvery.Seconds()
	perSecond := 1 / p.upEvery.Seconds()
	upPackets = perSecond + 1/probeEvery.Seconds()
	upBytes = perSecond*float64(len(p.up(nil, 0))) + keepalive
	downPackets, downBytes = 1/probeEvery.Seconds(), keepalive
	if p.downEvery == 0 {
		return
	}
	ticks := 1 / p.downEvery.Seconds()
	var tickBytes float64
	for _, t := range p.ticks {
		tickBytes += float64(len(t.blob))
	}
	downPackets += ticks * (1 + float64(p.chunk.frames)/playChunkEvery)
	downBytes += ticks * (tickBytes/float64(len(p.ticks)) + float64(len(p.chunk.blob))/playChunkEvery)
	return
}

// Up is the client's schedule for the player called name: keepalives and the scenario's packets.
func (p *Paced) Up(name string) Schedule {
	return merged{
		{next: phase(name, saltProbe, probeEvery), every: probeEvery, probe: true, build: appendProbe},
		{next: phase(name, saltUp, p.upEvery), every: p.upEvery, build: p.up},
	}
}

// Down is the backend's schedule for the player called name, nil when nothing is paced down.
func (p *Paced) Down(name string) Schedule {
	if p.downEvery == 0 {
		return nil
	}
	off := nameHash(name, saltDown)
	build := func(dst []byte, seq uint64) []byte { return p.appendDown(dst, seq, off) }
	return merged{{next: phase(name, saltDown, p.downEvery), every: p.downEvery, build: build}}
}

// appendDown is tick seq: a template stamped with seq, and the chunk burst on one tick in
// playChunkEvery (which one depends on the player, so that bursts do not line up).
func (p *Paced) appendDown(dst []byte, seq, off uint64) []byte {
	dst = p.ticks[seq%uint64(len(p.ticks))].stamp(dst, seq)
	if (seq+off)%playChunkEvery == playChunkEvery-1 {
		dst = p.chunk.stamp(dst, seq)
	}
	return dst
}

func appendProbe(dst []byte, seq uint64) []byte { return appendKeepAlive(dst, int32(seq)) }

func appendKeepAlive(dst []byte, id int32) []byte {
	return mc.AppendFrame(dst, idKeepAlive, binary.BigEndian.AppendUint32(nil, uint32(id)))
}

// KeepAliveID is the id of a keepalive frame body; ok is false for any other packet.
func KeepAliveID(body []byte) (id int32, ok bool) {
	pid, fields, err := mc.PacketID(body)
	if err != nil || pid != idKeepAlive || len(fields) != 4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(fields)), true
}

// NewAnswerer is the backend's side: it echoes keepalives and checks that the scenario's
// packets arrive in order.
func (p *Paced) NewAnswerer() Answerer { return &pacedAnswerer{name: p.name} }

type pacedAnswerer struct {
	name string
	next uint64
}

func (a *pacedAnswerer) Answer(dst, frame, body []byte) ([]byte, error) {
	if _, ok := KeepAliveID(body); ok {
		return append(dst, frame...), nil
	}
	id, fields, err := mc.PacketID(body)
	if err != nil {
		return dst, err
	}
	seq, carries, bad := carriedSeq(id, fields)
	switch {
	case bad != "":
		return dst, a.fail("%s", bad)
	case !carries:
		return dst, a.fail("unexpected packet %#x", id)
	case seq != a.next:
		return dst, a.fail("packet %#x carries %d, want %d", id, seq, a.next)
	}
	a.next++
	return dst, nil
}

func (a *pacedAnswerer) fail(format string, args ...any) error {
	return &SequenceError{Profile: a.name, Detail: fmt.Sprintf(format, args...)}
}

// DownCheck is the client's check of what comes down besides keepalives: the backend's ticks
// in order, byte for byte.
type DownCheck struct {
	p        *Paced
	off, seq uint64
	want     []byte
	at       int
}

// NewDownCheck checks the down stream of the player called name.
func (p *Paced) NewDownCheck(name string) *DownCheck {
	return &DownCheck{p: p, off: nameHash(name, saltDown)}
}

// Frame checks one clientbound frame (prefix included) that is not a keepalive.
func (d *DownCheck) Frame(frame []byte) error {
	if d.p.downEvery == 0 {
		return &SequenceError{Profile: d.p.name, Detail: fmt.Sprintf("a %d-byte frame where only keepalives come down", len(frame))}
	}
	if d.at == len(d.want) {
		d.want, d.at = d.p.appendDown(d.want[:0], d.seq, d.off), 0
		d.seq++
	}
	end := d.at + len(frame)
	if end > len(d.want) || !bytes.Equal(frame, d.want[d.at:end]) {
		return &SequenceError{Profile: d.p.name, Detail: fmt.Sprintf("tick %d: frame at byte %d differs", d.seq-1, d.at)}
	}
	d.at = end
	return nil
}
