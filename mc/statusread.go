package mc

import "bufio"

// In the status state the client sends two frames, which the proxy answers
// itself when no backend is up:
//
//	status request  01 00                    id 0, empty body
//	ping            09 01 <8-byte payload>   id 1, a long to echo in the pong
//
// Nothing else is valid here, so both are parsed strictly.

const (
	statusRequestID = 0x00
	pingPacketID    = 0x01
	maxStatusPacket = 1 + 8 // a ping: id and payload
)

// StatusPacket is a parsed status-state packet from the client.
type StatusPacket struct {
	Ping    bool    // false for a status request, true for a ping
	Payload [8]byte // the ping's payload, to echo with AppendPong
}

// ParseStatusPacket parses the status request or ping frame at the start of
// b and returns it with the number of bytes it used.
func ParseStatusPacket(b []byte) (StatusPacket, int, error) {
	start, size, err := frameHead(b, maxStatusPacket, "status")
	if err != nil {
		return StatusPacket{}, 0, err
	}
	c := newCursor(b, start, size, "status")
	var p StatusPacket
	p.Ping = c.packetID(statusRequestID, pingPacketID) == pingPacketID
	if p.Ping {
		copy(p.Payload[:], c.take(len(p.Payload)))
	}
	c.end()
	if c.err != nil {
		return StatusPacket{}, 0, c.err
	}
	return p, start + size, nil
}

// ReadStatusPacket reads one status request or ping from r.
func ReadStatusPacket(r *bufio.Reader) (StatusPacket, error) {
	return ReadParsed(r, ParseStatusPacket)
}
