package mc

// Login Start is the first frame after a login handshake:
//
//	length      VarInt
//	packet id   VarInt   0x00
//	name        String   at most 16 characters
//	then, by version (protocol number):
//	  759 (1.19)           a signature: not read
//	  760 (1.19.1-2)       has signature Bool, [signature], has UUID Bool, [UUID]
//	  761-763 (1.19.3-20.1) has UUID Bool, [UUID 16 bytes]
//	  764+ (1.20.2+)       UUID 16 bytes
//
// The proxy reads only the name and the UUID, for its log line and login events; the frame goes
// to the backend untouched. A 1.19.1 UUID behind a signature is not read (the signature can be
// large).

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
	name = c.utf8String(MaxPlayerNameBytes, ErrNameTooLong)
	if c.err == nil && utf16Len(name) > 16 {
		c.failAt(0, ErrNameTooLong)
	}
	if c.err != nil {
		return "", 0, c.err
	}
	return name, start + size, nil
}

// LoginStart is what the proxy reads of Login Start.
type LoginStart struct {
	Name string
	UUID [16]byte
	// HasUUID: the player's version sent one (and it was not behind a 1.19.1 signature).
	HasUUID bool
}

// MaxLoginStartHead is the most of Login Start ParseLoginStart needs: a length, the packet id,
// the name's length and the name, two Bools and a UUID.
const MaxLoginStartHead = 3 + 1 + 1 + MaxPlayerNameBytes + 2 + 16

// Protocol numbers where Login Start changed.
const (
	protocolSignedLoginUUID = 760 // 1.19.1: optional signature, then an optional UUID
	protocolOptionalUUID    = 761 // 1.19.3: an optional UUID
	protocolUUID            = 764 // 1.20.2: the UUID always
)

// ParseLoginStart reads Login Start at the start of b as a client of protocol sends it: the name
// and, where that version sends one, the UUID; ErrNeedMore until those bytes have all arrived.
func ParseLoginStart(b []byte, protocol int32) (LoginStart, error) {
	name, _, err := ParsePlayerName(b)
	if err != nil {
		return LoginStart{}, err
	}
	start, size, _ := frameHead(b, MaxFrameLen, "login start") // checked by ParsePlayerName
	c := newCursor(b, start, size, "login start")
	c.packetID(0)
	c.utf8String(MaxPlayerNameBytes, ErrNameTooLong)
	ls := LoginStart{Name: name}
	switch {
	case protocol >= protocolUUID:
		ls.HasUUID = true
	case protocol >= protocolOptionalUUID:
		ls.HasUUID = c.uint8() == 1
	case protocol == protocolSignedLoginUUID:
		ls.HasUUID = c.uint8() == 0 && c.uint8() == 1 // no signature, then a UUID
	}
	if ls.HasUUID {
		copy(ls.UUID[:], c.take(16))
	}
	if c.err != nil {
		return LoginStart{}, c.err
	}
	return ls, nil
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
