package relay

import (
	"bytes"
	"testing"

	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/play"
)

// moverProtocol is the protocol of these tests' streams (1.21.1).
const moverProtocol = 767

// moverStream is a backend's stream to a player, uncompressed: Login Success, Finish
// Configuration, then two play packets; inPlay is where the play state begins.
func moverStream() (stream []byte, inPlay int) {
	stream = mc.AppendFrame(nil, 0x02, append(make([]byte, 16), 0x05, 'S', 't', 'e', 'v', 'e', 0x00, 0x01))
	stream = mc.AppendFrame(stream, 0x03, nil) // Finish Configuration
	inPlay = len(stream)
	stream = mc.AppendFrame(stream, 0x26, bytes.Repeat([]byte{7}, 300)) // a keep-alive-sized packet and more
	return mc.AppendFrame(stream, 0x26, bytes.Repeat([]byte{8}, 40)), inPlay
}

// transferFor is what a tracker that has read stream[:at] encodes as the Transfer.
func transferFor(t *testing.T, stream []byte, at int) []byte {
	t.Helper()
	tr, err := play.NewTracker(moverProtocol)
	if err != nil {
		t.Fatal(err)
	}
	tr.Feed(stream[:at], false)
	if !tr.Movable() {
		t.Fatalf("stream[:%d] does not end at a movable boundary", at)
	}
	return tr.AppendTransfer(nil, "live.example.net", 25565)
}

func buildTransfer(tr *play.Tracker) []byte { return tr.AppendTransfer(nil, "live.example.net", 25565) }

// TestMoverCodecPutsTheTransferBehindThePacketPartlyThrough: asked while the backend's play
// packet is half read, the loop codec lets it finish and puts the Transfer right behind it, in
// the same read's bytes, with the rest of the stream after it untouched.
func TestMoverCodecPutsTheTransferBehindThePacketPartlyThrough(t *testing.T) {
	stream, inPlay := moverStream()
	m := newMover(moverProtocol, "")
	c := moverCodec{Codec: loop.Identity{}, m: m}
	half := inPlay + 100
	out := open(t, c, stream[:half])
	var sent []bool
	if now := m.request(buildTransfer, func(ok bool) { sent = append(sent, ok) }); now != nil {
		t.Fatal("the mover sent at once in the middle of a packet")
	}
	out = append(out, open(t, c, stream[half:])...)
	firstEnd := inPlay + len(mc.AppendFrame(nil, 0x26, bytes.Repeat([]byte{7}, 300)))
	want := append(append(append([]byte(nil), stream[:firstEnd]...), transferFor(t, stream, firstEnd)...), stream[firstEnd:]...)
	if !bytes.Equal(out, want) {
		t.Fatalf("stream to the player (%d bytes) is not the backend's with the Transfer after its first play packet (%d bytes)", len(out), len(want))
	}
	if len(sent) != 1 || !sent[0] {
		t.Fatalf("done calls %v, want one true", sent)
	}
}

// TestMoverSendsAtOnceAtABoundary: at a boundary the packets are handed back to go out now.
func TestMoverSendsAtOnceAtABoundary(t *testing.T) {
	stream, _ := moverStream()
	m := newMover(moverProtocol, "")
	m.split(stream)
	now := m.request(buildTransfer, func(bool) { t.Error("done is the caller's for packets sent at once") })
	if !bytes.Equal(now, transferFor(t, stream, len(stream))) {
		t.Fatalf("packets at a boundary: %x", now)
	}
}

// TestMoverGivesUpOnAnEncryptedStream: after the backend's Encryption Request (a passthrough
// route to a server in online mode) nothing can be put in: done(false), at once.
func TestMoverGivesUpOnAnEncryptedStream(t *testing.T) {
	m := newMover(moverProtocol, "")
	m.split(mc.AppendFrame(nil, 0x01, []byte{0, 1, 2, 3})) // Encryption Request
	m.split([]byte{0x99, 0x13, 0x37})                      // cipher text from here
	var got []bool
	if now := m.request(buildTransfer, func(ok bool) { got = append(got, ok) }); now != nil || len(got) != 1 || got[0] {
		t.Fatalf("request on an encrypted stream: now %x, done %v; want nothing and one false", now, got)
	}
}

// TestPumpWriterSplitsTheBatchAroundThePackets: on the pumps, the batch that completes the
// packet partly through goes out in three writes: up to the boundary, the packets, the rest.
func TestPumpWriterSplitsTheBatchAroundThePackets(t *testing.T) {
	stream, inPlay := moverStream()
	var wire []byte
	w := pumpWriter{m: newMover(moverProtocol, ""), write: func(buf []byte, n int) error {
		wire = append(wire, buf[headroom:headroom+n]...)
		return nil
	}}
	half := inPlay + 100
	w.Write(withHeadroom(stream[:half]), half)
	var sent []bool
	w.send(buildTransfer, func(ok bool) { sent = append(sent, ok) })
	w.Write(withHeadroom(stream[half:]), len(stream)-half)
	firstEnd := inPlay + len(mc.AppendFrame(nil, 0x26, bytes.Repeat([]byte{7}, 300)))
	want := append(append(append([]byte(nil), stream[:firstEnd]...), transferFor(t, stream, firstEnd)...), stream[firstEnd:]...)
	if !bytes.Equal(wire, want) || len(sent) != 1 || !sent[0] {
		t.Fatalf("wire equal %v, done %v", bytes.Equal(wire, want), sent)
	}
}

func withHeadroom(b []byte) []byte { return append(make([]byte, headroom), b...) }

// open runs c.Open on a copy of b with the room a loop leaves behind a read.
func open(t *testing.T, c moverCodec, b []byte) []byte {
	t.Helper()
	in := make([]byte, len(b), len(b)+c.Growth())
	copy(in, b)
	n, reply, err := c.Open(in)
	if err != nil || reply != nil {
		t.Fatalf("Open: %v, reply %x", err, reply)
	}
	return in[:n]
}

// TestMoverPutsNothingBehindItsOwnTransfer: once its Transfer went in, the stream has ended for
// the player: a later request (the drain's Disconnect for those still there) is refused at once.
func TestMoverPutsNothingBehindItsOwnTransfer(t *testing.T) {
	stream, _ := moverStream()
	m := newMover(moverProtocol, "")
	m.split(stream)
	if now := m.request(buildTransfer, func(bool) {}); now == nil {
		t.Fatal("no Transfer at a boundary")
	}
	var got []bool
	if now := m.request(buildTransfer, func(ok bool) { got = append(got, ok) }); now != nil || len(got) != 1 || got[0] {
		t.Fatalf("a request behind the Transfer: now %x, done %v; want nothing and one false", now, got)
	}
}
