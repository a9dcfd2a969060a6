package traffic

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/moonbridge/moonbridge/mc"
)

// Clientbound packet ids of the modded mix (1.7.10 numbering).
const (
	idCustomPayload = 0x3F // S3F: mod channel traffic, Forge registry sync
	idTileEntity    = 0x35 // S35: tile entity update
	idChunk         = 0x21 // S21: one chunk column
)

// seqLen is the sequence number every clientbound packet carries, big-endian.
const seqLen = 8

// Fixed field sizes in front of the data each packet carries; the data starts with the sequence.
const (
	tileEntityHead = 4 + 2 + 4 + 1 + 2     // x, y, z, action, NBT length
	chunkHead      = 4 + 4 + 1 + 2 + 2 + 4 // x, z, ground-up, bitmaps, compressed size
)

// modChannels are the mod channels S3F packets name; a relay never looks inside them.
var modChannels = []string{"FML", "journeymap", "appliedenergistics2", "ThermalExpansion", "NEI"}

// placed is a frame appended to a blob and where its sequence number goes.
type placed struct {
	blob  []byte
	seqAt int
}

// appendCustomPayload appends an S3F whose data (sequence first) is dataLen bytes.
func appendCustomPayload(dst []byte, r *rand.Rand, channel string, dataLen int) placed {
	fields := mc.AppendString(nil, channel)
	fields = binary.BigEndian.AppendUint16(fields, uint16(dataLen))
	return appendWithData(dst, r, idCustomPayload, fields, dataLen)
}

// appendTileEntity appends an S35 whose body is about bodyLen bytes (never less than its header
// and the sequence).
func appendTileEntity(dst []byte, r *rand.Rand, bodyLen int) placed {
	nbtLen := max(bodyLen-1-tileEntityHead, seqLen)
	fields := make([]byte, 0, tileEntityHead)
	fields = binary.BigEndian.AppendUint32(fields, r.Uint32()%4096)
	fields = binary.BigEndian.AppendUint16(fields, uint16(r.IntN(256)))
	fields = binary.BigEndian.AppendUint32(fields, r.Uint32()%4096)
	fields = append(fields, byte(1+r.IntN(6)))
	fields = binary.BigEndian.AppendUint16(fields, uint16(nbtLen))
	return appendWithData(dst, r, idTileEntity, fields, nbtLen)
}

// appendChunk appends an S21 carrying dataLen bytes of chunk data.
func appendChunk(dst []byte, r *rand.Rand, dataLen int) placed {
	fields := make([]byte, 0, chunkHead)
	fields = binary.BigEndian.AppendUint32(fields, uint32(r.IntN(64)))
	fields = binary.BigEndian.AppendUint32(fields, uint32(r.IntN(64)))
	fields = append(fields, 1)
	fields = binary.BigEndian.AppendUint16(fields, 0xffff)
	fields = binary.BigEndian.AppendUint16(fields, 0)
	fields = binary.BigEndian.AppendUint32(fields, uint32(dataLen))
	return appendWithData(dst, r, idChunk, fields, dataLen)
}

// appendWithData appends a frame of head fields followed by dataLen bytes: a sequence slot
// (zero until stamped) and random filler.
func appendWithData(dst []byte, r *rand.Rand, id int32, head []byte, dataLen int) placed {
	fields := append(head, make([]byte, seqLen)...)
	fields = append(fields, randomBytes(r, dataLen-seqLen)...)
	out := mc.AppendFrame(dst, id, fields)
	return placed{blob: out, seqAt: len(out) - dataLen}
}
