package modern

import (
	"bytes"
	"compress/zlib"
	"io"
	"sync"

	"github.com/moonbridge/moonbridge/mc"
)

// maxPacket is the largest packet vanilla inflates (2^23 bytes).
const maxPacket = 8 << 20

// Conn reads and writes whole packets of one connection, in the compressed format once
// SetCompression has been called. Reads belong to one goroutine; writes may come from several.
type Conn struct {
	r         *mc.FrameReader
	threshold int32 // -1: frames are not compressed

	wmu  sync.Mutex
	w    io.Writer
	wbuf []byte
	zw   *zlib.Writer
	zbuf bytes.Buffer
}

// NewConn reads frames from r (which may already hold some: a handshake read by the caller)
// and writes to w. r may be nil for a Conn that only writes.
func NewConn(w io.Writer, r *mc.FrameReader) *Conn {
	return &Conn{r: r, w: w, threshold: -1}
}

// SetCompression switches both directions to the compressed format with threshold, as Set
// Compression does right after it is sent or read; a negative threshold switches it off.
func (c *Conn) SetCompression(threshold int32) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.threshold = max(threshold, -1)
}

// ReadPacket returns the next packet's id and fields (valid until the next read). A stream
// that ends between frames returns io.EOF.
func (c *Conn) ReadPacket() (id int32, fields []byte, err error) {
	_, body, err := c.r.ReadFrame()
	if err != nil {
		return 0, nil, err
	}
	if c.threshold >= 0 {
		if body, err = c.inflate(body); err != nil {
			return 0, nil, err
		}
	}
	id, fields, err = mc.PacketID(body)
	if err != nil {
		return 0, nil, &ProtocolError{State: "frame", Packet: "packet id", Err: err}
	}
	return id, fields, nil
}

// inflate undoes the compressed format: data length 0 is a packet as is, any other is the
// length the zlib stream must inflate to, refused below the threshold as vanilla does.
func (c *Conn) inflate(body []byte) ([]byte, error) {
	f := readFields("frame", "compressed frame", body)
	size := f.length(maxPacket)
	if f.err != nil {
		return nil, f.err
	}
	if size == 0 {
		return f.b, nil
	}
	if size < int(c.threshold) {
		return nil, &ProtocolError{State: "frame", Packet: "compressed frame", Err: errBelowThreshold}
	}
	zr, err := zlib.NewReader(bytes.NewReader(f.b))
	if err != nil {
		return nil, &ProtocolError{State: "frame", Packet: "compressed frame", Err: err}
	}
	packet := make([]byte, size)
	if _, err := io.ReadFull(zr, packet); err != nil {
		return nil, &ProtocolError{State: "frame", Packet: "compressed frame", Err: errInflate}
	}
	if n, _ := zr.Read(make([]byte, 1)); n > 0 {
		return nil, &ProtocolError{State: "frame", Packet: "compressed frame", Err: errInflate}
	}
	return packet, nil
}

// WritePacket writes one packet as one frame in one Write: zlib-compressed when compression is
// on and the packet is at least the threshold, in the compressed format with data length 0
// when it is smaller.
func (c *Conn) WritePacket(id int32, fields []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	packetLen := mc.VarIntLen(id) + len(fields)
	switch {
	case c.threshold < 0:
		c.wbuf = mc.AppendFrame(c.wbuf[:0], id, fields)
	case packetLen < int(c.threshold):
		c.wbuf = mc.AppendVarInt(c.wbuf[:0], int32(1+packetLen))
		c.wbuf = append(mc.AppendVarInt(append(c.wbuf, 0), id), fields...)
	default:
		if err := c.deflate(id, fields); err != nil {
			return err
		}
		c.wbuf = mc.AppendVarInt(c.wbuf[:0], int32(mc.VarIntLen(int32(packetLen))+c.zbuf.Len()))
		c.wbuf = append(mc.AppendVarInt(c.wbuf, int32(packetLen)), c.zbuf.Bytes()...)
	}
	_, err := c.w.Write(c.wbuf)
	return err
}

// deflate leaves zlib(VarInt(id) | fields) in c.zbuf.
func (c *Conn) deflate(id int32, fields []byte) error {
	c.zbuf.Reset()
	if c.zw == nil {
		c.zw = zlib.NewWriter(&c.zbuf)
	} else {
		c.zw.Reset(&c.zbuf)
	}
	var idBytes [mc.MaxVarIntLen]byte
	if _, err := c.zw.Write(mc.AppendVarInt(idBytes[:0], id)); err != nil {
		return err
	}
	if _, err := c.zw.Write(fields); err != nil {
		return err
	}
	return c.zw.Close()
}
