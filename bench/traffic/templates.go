package traffic

import (
	"encoding/binary"
	"math/rand/v2"
)

// templateCount and templateSeed fix the modded answers. The seed is the first below 200 whose
// 256 templates average within 0.1 packet and 0.1 KB of the 10.2 packets and 6.1 KB per tick
// of the Java MoonBridge's CDN record (2026-10-23, docs/design.md "Where this comes from"):
// 10.27 packets, 6087 bytes (TestModdedShape pins them).
const (
	templateCount = 256
	templateSeed  = 35
)

// Size ranges of the modded mix (the same record): 6-14 small packets of 20-600 B, a 2-8 KiB
// payload on about one tick in three, a 30-60 KiB chunk on about one in twenty.
const (
	minSmall, maxSmall        = 6, 14
	minSmallLen, maxSmallLen  = 20, 600
	minMedium, maxMedium      = 2 << 10, 8 << 10
	minChunk, maxChunk        = 30 << 10, 60 << 10
	mediumOneIn, chunkOneIn   = 3, 20
	burstFrames, burstDataLen = 70, 30000
	burstChannel, tickChannel = "FML|HS", "moonbridge:tick"
)

// template is a run of clientbound frames with the places where the sequence number goes.
type template struct {
	blob   []byte
	seqAt  []int
	frames int
}

// add appends a placed frame to the template.
func (t *template) add(p placed) {
	t.blob = p.blob
	t.seqAt = append(t.seqAt, p.seqAt)
	t.frames++
}

// stamp appends the template to dst with seq written into every packet.
func (t *template) stamp(dst []byte, seq uint64) []byte {
	start := len(dst)
	dst = append(dst, t.blob...)
	for _, at := range t.seqAt {
		binary.BigEndian.PutUint64(dst[start+at:], seq)
	}
	return dst
}

// buildTemplates makes the 256 tick answers from the fixed seed.
func buildTemplates() []template {
	r := rand.New(rand.NewPCG(templateSeed, templateSeed))
	ts := make([]template, templateCount)
	for i := range ts {
		ts[i] = buildTemplate(r)
	}
	return ts
}

// buildTemplate draws one tick's answer. The big packets land at a random place among the
// small ones, as a chunk or a mod's bulk sync would among entity and tile updates.
func buildTemplate(r *rand.Rand) template {
	var t template
	small := minSmall + r.IntN(maxSmall-minSmall+1)
	medium := r.IntN(mediumOneIn) == 0
	chunk := r.IntN(chunkOneIn) == 0
	bigAt := r.IntN(small + 1)
	for i := 0; i <= small; i++ {
		if i == bigAt {
			addBig(&t, r, medium, chunk)
		}
		if i < small {
			t.add(appendSmall(t.blob, r))
		}
	}
	return t
}

func addBig(t *template, r *rand.Rand, medium, chunk bool) {
	if medium {
		channel := modChannels[r.IntN(len(modChannels))]
		t.add(appendCustomPayload(t.blob, r, channel, between(r, minMedium, maxMedium)))
	}
	if chunk {
		t.add(appendChunk(t.blob, r, between(r, minChunk, maxChunk)))
	}
}

// appendSmall appends an S3F or an S35. Sizes lean small (the square of a uniform draw), as
// most per-tick updates are, which is what brings the mean tick to the seed's 6.1 KB.
func appendSmall(dst []byte, r *rand.Rand) placed {
	u := r.Float64()
	bodyLen := minSmallLen + int(u*u*float64(maxSmallLen-minSmallLen))
	if r.IntN(2) == 0 {
		return appendTileEntity(dst, r, bodyLen)
	}
	channel := modChannels[r.IntN(len(modChannels))]
	head := 1 + 1 + len(channel) + 2 // id, string length, channel, data length
	return appendCustomPayload(dst, r, channel, max(bodyLen-head, seqLen))
}

// buildLoginBurst makes the 70 x 30,000-byte S3F payloads that stand in for Forge's registry
// sync; packet i carries i as its sequence number.
func buildLoginBurst() Burst {
	r := rand.New(rand.NewPCG(templateSeed, burstFrames))
	var t template
	for range burstFrames {
		t.add(appendCustomPayload(t.blob, r, burstChannel, burstDataLen))
	}
	for i, at := range t.seqAt {
		binary.BigEndian.PutUint64(t.blob[at:], uint64(i))
	}
	return Burst{Bytes: t.blob, Frames: t.frames}
}

func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }
