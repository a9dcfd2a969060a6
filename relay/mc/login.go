package mc

// Login Start is the first frame after a login handshake:
//
//	length      VarInt
//	packet id   VarInt   0x00
//	name        String   at most 16 characters
//	...         the player's UUID (1.19.1+), a signature (1.19 only): not read here
//
// The proxy reads only the name, for its log line; the frame goes to the backend untouched.

// MaxPlayerNameBytes is vanilla's 16-character name limit in UTF-8 bytes (3 per character).
const MaxPlayerNameBytes = 3 * 16

// ParsePlayerName returns the player's name from the Login Start frame at the start of b, and
// the frame's length. It needs only the bytes up to the end of the name (a 1.19 signature after
// it can be large); ErrNeedMore while they have not all arrived.
func ParsePlayerName(b []byte) (name string, frameLen int, err error) {
	start, size, err := frameHead(b, MaxFrameLen, "login start")
	if err != nil {
		return "", 0, err
	}
	c := newCursor(b, start, size, "login start")
	c.packetID(0)
	name = c.playerName()
	if c.err != nil {
		return "", 0, c.err
	}
	return name, start + size, nil
}

// playerName reads a player's name: at most 16 characters.
func (c *cursor) playerName() string {
	name := c.utf8String(MaxPlayerNameBytes, ErrNameTooLong)
	if c.err == nil && utf16Len(name) > 16 {
		c.failAt(0, ErrNameTooLong)
	}
	return name
}
