package modern

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// pipeConn is a Conn that reads back what it wrote.
func pipeConn(threshold int32) (*Conn, *bytes.Buffer) {
	var buf bytes.Buffer
	c := NewConn(&buf, mc.NewFrameReader(&buf, 64))
	c.SetCompression(threshold)
	return c, &buf
}

func TestPacketsReadBackWithAndWithoutCompression(t *testing.T) {
	for _, threshold := range []int32{-1, 0, 256} {
		c, _ := pipeConn(threshold)
		for _, size := range []int{0, 1, 254, 255, 600, 70000} {
			fields := bytes.Repeat([]byte{byte(size)}, size)
			if err := c.WritePacket(PlayPluginMessageID, fields); err != nil {
				t.Fatal(err)
			}
			id, got, err := c.ReadPacket()
			if err != nil || id != PlayPluginMessageID || !bytes.Equal(got, fields) {
				t.Errorf("threshold %d, %d bytes: id %#x, %d bytes, %v", threshold, size, id, len(got), err)
			}
		}
	}
}

// Vanilla compresses a packet of at least the threshold, and sends a smaller one with data
// length 0: packet id and fields of 255 bytes are below 256, of 256 at it.
func TestCompressionStartsAtTheThreshold(t *testing.T) {
	for _, c := range []struct {
		fields     int
		dataLength int32
	}{{254, 0}, {255, 256}, {600, 601}} {
		conn, buf := pipeConn(256)
		conn.WritePacket(PlayPluginMessageID, make([]byte, c.fields))
		body, _, err := mc.ReadFrame(buf.Bytes(), mc.MaxFrameLen)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := mc.ReadVarInt(body); got != c.dataLength {
			t.Errorf("%d-byte fields: data length %d, want %d", c.fields, got, c.dataLength)
		}
	}
}

func compressedFrame(dataLength int32, payload []byte) []byte {
	body := append(mc.AppendVarInt(nil, dataLength), payload...)
	return append(mc.AppendVarInt(nil, int32(len(body))), body...)
}

func TestBadCompressedFramesAreProtocolErrors(t *testing.T) {
	packet := append([]byte{byte(PlayPluginMessageID)}, make([]byte, 300)...)
	for name, frame := range map[string][]byte{
		"size lies":       compressedFrame(int32(len(packet)+1), testutil.Zlib(packet)),
		"inflates longer": compressedFrame(int32(len(packet)-1), testutil.Zlib(packet)),
		"below threshold": compressedFrame(10, testutil.Zlib(packet[:10])),
		"not zlib":        compressedFrame(int32(len(packet)), packet),
		"negative size":   compressedFrame(-1, nil),
		"huge size":       compressedFrame(maxPacket+1, testutil.Zlib(packet)),
		"empty packet":    compressedFrame(0, nil),
	} {
		c := NewConn(io.Discard, mc.NewFrameReader(bytes.NewReader(frame), 64))
		c.SetCompression(256)
		_, _, err := c.ReadPacket()
		if !errors.As(err, new(*ProtocolError)) {
			t.Errorf("%s: err = %v, want a *ProtocolError", name, err)
		}
	}
}
