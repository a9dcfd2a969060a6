package play

import (
	"fmt"
	"io"

	"github.com/moonbridge/moonbridge/mc"
)

const (
	// maxPrefix is the packet data the tracker reads: a packet id and one VarInt field (Set
	// Compression's threshold).
	maxPrefix = 2 * mc.MaxVarIntLen
	// firstLook is the body bytes looked at first: enough for maxPrefix after a data length,
	// so an uncompressed packet is read at once.
	firstLook = mc.MaxVarIntLen + maxPrefix + 1
	// headCap bounds the body bytes buffered to find the id of a compressed packet. zlib yields
	// its first bytes after a block header: tens of bytes for Huffman codes of its own, and a few
	// hundred at the most in practice. The checkpoints after firstLook grow eightfold (128,
	// 1024, headCap), so a frame is inflated once in the usual case and over at most 5 KiB of
	// input in all.
	headCap = 4096
	// maxFollowedLen is the longest packet data, id included, in configuration and play whose id
	// the tracker reads from a compressed packet. The packets that change where a packet can go
	// in (Finish and Start Configuration, the bundle delimiter) have no fields; a Disconnect or a
	// Transfer longer than this, compressed, goes unnoticed (Ended stays false: what is put in
	// after it reaches a client that has left). Inflating every compressed packet's start cost
	// most of the tracker's CPU (bench/results/2026-12-01-transfer.md).
	maxFollowedLen = 64
)

// lookHead looks at the body bytes buffered: it reads the packet from them, or moves the
// checkpoint on when more are needed. At the last checkpoint, with the whole body or headCap
// bytes buffered, it reads the packet or fails.
func (t *Tracker) lookHead() {
	last := t.left == 0 || len(t.head) == headCap
	data, ok := t.packetData(last)
	switch {
	case t.err != nil:
	case ok:
		t.known = true
		if data != nil {
			t.packet(data)
		}
	default: // not at the last checkpoint: packetData fails there when it cannot read the packet
		t.want = min(len(t.head)+t.left, headCap, 8*t.want)
	}
}

// packetData returns the packet's first bytes (id and fields, decompressed; up to maxPrefix of
// them) from the body's head, ok once that is all there will be.
func (t *Tracker) packetData(last bool) (data []byte, ok bool) {
	body := t.head
	if t.threshold < 0 {
		return body[:min(len(body), maxPrefix)], true // firstLook holds maxPrefix
	}
	dataLen, n, err := mc.ReadVarInt(body)
	switch {
	case err == mc.ErrNeedMore:
		t.fail(mc.ErrTruncated) // firstLook holds a VarInt: the body ended inside it
		return nil, false
	case err != nil:
		t.fail(err)
		return nil, false
	case dataLen < 0:
		t.fail(mc.ErrMalformed)
		return nil, false
	case dataLen == 0: // sent uncompressed
		return body[n:min(len(body), n+maxPrefix)], true
	}
	if t.state != Login && dataLen > maxFollowedLen {
		return nil, true // no packet the tracker follows is this long: skip its inflating
	}
	if !last && len(body) == firstLook {
		return nil, false // too early for a block header: inflate from the next checkpoint on
	}
	return t.inflate(body[n:], min(int(dataLen), maxPrefix), last)
}

// inflate decompresses the first need bytes of packet data from comp, the compressed bytes
// buffered so far.
func (t *Tracker) inflate(comp []byte, need int, last bool) ([]byte, bool) {
	got, err := inflatePrefix(comp, t.data[:need])
	switch {
	case got == need:
		return t.data[:need], true
	case err != io.ErrUnexpectedEOF && err != io.EOF:
		t.fail(fmt.Errorf("%w: %v", ErrBadCompression, err))
	case t.left == 0: // the whole body: the data ends before its declared length
		t.fail(ErrBadCompression)
	case last:
		t.fail(ErrIDTooDeep)
	}
	return nil, false
}

// packet reads the packet id from data and follows what it does to the stream.
func (t *Tracker) packet(data []byte) {
	id, n, err := mc.ReadVarInt(data)
	switch {
	case err == mc.ErrNeedMore:
		t.fail(mc.ErrTruncated)
		return
	case err != nil:
		t.fail(err)
		return
	}
	switch t.state {
	case Login:
		t.loginPacket(id, data[n:])
	case Configuration:
		t.configurationPacket(id)
	case Play:
		t.playPacket(id)
	}
}

func (t *Tracker) loginPacket(id int32, fields []byte) {
	switch id {
	case mc.SetCompressionID:
		threshold, err := mc.ParseSetCompression(fields)
		if err != nil {
			t.fail(err)
			return
		}
		t.threshold = max(threshold, -1) // any negative threshold turns compression off
	case mc.LoginSuccessID:
		t.state = Configuration
	case mc.EncryptionRequestID:
		t.err = ErrEncrypted
	case mc.LoginDisconnectID:
		t.ended = true
	}
}

func (t *Tracker) configurationPacket(id int32) {
	switch id {
	case t.ids.Configuration.Switch:
		t.state = Play
	case t.ids.Configuration.Disconnect, t.ids.Configuration.Transfer:
		t.ended = true
	}
}

func (t *Tracker) playPacket(id int32) {
	switch id {
	case t.ids.Play.Switch:
		t.state, t.inBundle = Configuration, false
	case t.ids.Play.Disconnect, t.ids.Play.Transfer:
		t.ended = true
	case t.ids.BundleDelimiter:
		t.inBundle = !t.inBundle
	}
}
