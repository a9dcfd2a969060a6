package mc

// Login Start is the first frame after a login handshake:
//
//	length      VarInt
//	packet id   VarInt   0x00
//	name        String   at most 16 characters
//	then, by version (the LoginShape of loginversion.go, the one place for it):
//	  759 (1.19)           has signature Bool, [signature]
//	  760 (1.19.1-2)       has signature Bool, [signature], has UUID Bool, [UUID]
//	  761-763 (1.19.3-20.1) has UUID Bool, [UUID 16 bytes]
//	  764+ (1.20.2+)       UUID 16 bytes
//
// For a login it passes through, the proxy reads only the name and the UUID, for its log line
// and login events (ParseLoginStart); the frame goes to the backend untouched. A 1.19.1 UUID
// behind a signature is not read then (the signature can be large). A login the proxy runs
// itself reads the whole frame (ParseLoginStartFrame, loginpackets.go).

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

// MaxLoginStartHead is the most of Login Start ParseLoginStart needs: a length, the packet id,
// the name's length and the name, two Bools and a UUID.
const MaxLoginStartHead = 3 + 1 + 1 + MaxPlayerNameBytes + 2 + 16

// ParseLoginStart reads Login Start at the start of b as a client of protocol sends it: the name
// and, where that version sends one, the UUID; ErrNeedMore until those bytes have all arrived.
// It reads only the frame's head: a chat key ends the reading (the UUID behind it is not read),
// and a protocol number that is no known release reads as the table's row it falls in.
func ParseLoginStart(b []byte, protocol int32) (LoginStart, error) {
	start, size, err := frameHead(b, MaxFrameLen, "login start")
	if err != nil {
		return LoginStart{}, err
	}
	c := newCursor(b, start, size, "login start")
	c.packetID(LoginStartID)
	ls := c.loginStart(loginShapeSince(protocol), false)
	if c.err != nil {
		return LoginStart{}, c.err
	}
	return ls, nil
}

// loginStart reads Login Start after its packet id as shape has it. With readKey false a chat
// key (1.19-1.19.2) ends the reading: what follows it, the UUID too, is not read.
func (c *cursor) loginStart(shape LoginShape, readKey bool) (ls LoginStart) {
	ls.Name = c.playerName()
	if shape.LoginStartKey && c.bool() {
		if !readKey {
			return ls
		}
		ls.Key = &PlayerKey{Expiry: c.int64(), PublicKey: c.byteArray(false), Signature: c.byteArray(false)}
	}
	switch shape.LoginStartUUID {
	case UUIDOptional:
		if ls.HasUUID = c.bool(); ls.HasUUID {
			ls.UUID = c.uuid()
		}
	case UUIDBinary:
		ls.UUID, ls.HasUUID = c.uuid(), true
	}
	return ls
}

// UUIDString formats a UUID the way Mojang's tools and server logs do.
func UUIDString(u [16]byte) string {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[b>>4], hex[b&15])
	}
	return string(out)
}
