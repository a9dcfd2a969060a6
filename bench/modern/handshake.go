package modern

import (
	"encoding/binary"
	"fmt"

	"github.com/moonbridge/moonbridge/mc"
)

// Handshake is a connection's first packet.
type Handshake struct {
	Protocol  int32
	Host      string // as sent: a proxy's forwarding data, if any, included
	Port      uint16
	NextState int32
}

// Fields are the handshake's packet fields.
func (h Handshake) Fields() []byte {
	b := mc.AppendString(mc.AppendVarInt(nil, h.Protocol), h.Host)
	return mc.AppendVarInt(binary.BigEndian.AppendUint16(b, h.Port), h.NextState)
}

// ParseHandshake reads a handshake frame's body (packet id and fields, uncompressed, as every
// first frame is).
func ParseHandshake(body []byte) (Handshake, error) {
	id, fields, err := mc.PacketID(body)
	if err == nil && id != HandshakeID {
		err = fmt.Errorf("%w %#x", errUnexpectedID, id)
	}
	if err != nil {
		return Handshake{}, &ProtocolError{State: "handshake", Packet: "handshake", Err: err}
	}
	f := readFields("handshake", "handshake", fields)
	h := Handshake{Protocol: f.varInt(), Host: f.string(), Port: f.uint16(), NextState: f.varInt()}
	return h, f.done()
}

// ReadHandshake reads and parses a connection's first packet.
func ReadHandshake(c *Conn) (Handshake, error) {
	_, body, err := c.r.ReadFrame()
	if err != nil {
		return Handshake{}, err
	}
	return ParseHandshake(body)
}
