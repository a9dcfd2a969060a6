package mc

import "errors"

// ErrNotHello means a connection's first bytes cannot begin a Minecraft hello: neither a
// legacy ping (FE) nor a frame whose length is a VarInt of at most 3 bytes (a handshake is
// far shorter than 2^21) followed by packet id 0x00. Scanners, TLS or HTTP sent to a port that
// does not serve them and random bytes are told apart from a malformed handshake this way.
var ErrNotHello = errors.New("mc: not the start of a Minecraft hello")

// maxFrameLengthBytes is the longest frame length VarInt a hello can have.
const maxFrameLengthBytes = 3

// CheckHelloStart says whether b, the first bytes of a connection, can begin a hello: nil
// when they can, ErrNeedMore while b is too short to tell, ErrNotHello when they cannot. It
// looks at no more than 4 bytes and does not allocate.
func CheckHelloStart(b []byte) error {
	if len(b) == 0 {
		return ErrNeedMore
	}
	if b[0] == 0xfe {
		return nil
	}
	for i := 0; i < maxFrameLengthBytes; i++ {
		switch {
		case i == len(b):
			return ErrNeedMore
		case b[i]&0x80 != 0:
			continue
		case i == len(b)-1:
			return ErrNeedMore
		case b[i] == 0 && i == 0, b[i+1] != 0x00: // an empty frame, or not packet id 0
			return ErrNotHello
		}
		return nil
	}
	return ErrNotHello
}
