package delaylink

import (
	"encoding/binary"
	"time"
)

// Counters is what one direction of the link carried, counted as each packet is written on.
type Counters struct {
	Packets uint64 `json:"packets"`
	Bytes   uint64 `json:"bytes"` // whole IP packets, headers included: what the wire carries
	// TCPPayload is the bytes of TCP segments' data (IPv4 and IPv6 without extension headers),
	// what the sockets at both ends wrote and read.
	TCPPayload uint64 `json:"tcp_payload"`
	// Dropped is packets not carried: read while the queue was full, or refused by the far
	// device (it was down).
	Dropped uint64 `json:"dropped"`
	// LateP50, LateP99 and LateMax are how long after their due time packets were written on.
	LateP50 time.Duration `json:"late_p50_ns"`
	LateP99 time.Duration `json:"late_p99_ns"`
	LateMax time.Duration `json:"late_max_ns"`
}

// Sub is what was carried between an earlier reading o and c (the lateness stays c's: it is
// over the link's life).
func (c Counters) Sub(o Counters) Counters {
	c.Packets -= o.Packets
	c.Bytes -= o.Bytes
	c.TCPPayload -= o.TCPPayload
	c.Dropped -= o.Dropped
	return c
}

const protoTCP = 6

// tcpPayload is the data length of a TCP segment in an IPv4 or IPv6 packet, 0 for anything
// else (or a packet too short to say).
func tcpPayload(p []byte) int {
	if len(p) < 1 {
		return 0
	}
	var ipHeader, total int
	switch p[0] >> 4 {
	case 4:
		if len(p) < 20 || p[9] != protoTCP {
			return 0
		}
		ipHeader, total = int(p[0]&0x0f)*4, int(binary.BigEndian.Uint16(p[2:4]))
	case 6:
		if len(p) < 40 || p[6] != protoTCP {
			return 0
		}
		ipHeader, total = 40, 40+int(binary.BigEndian.Uint16(p[4:6]))
	default:
		return 0
	}
	if len(p) < ipHeader+13 || total > len(p) {
		return 0
	}
	tcpHeader := int(p[ipHeader+12]>>4) * 4
	return max(total-ipHeader-tcpHeader, 0)
}
