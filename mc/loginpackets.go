package mc

import (
	"encoding/binary"
	"errors"
)

// The login packets the proxy reads and writes when it runs a login itself (online mode); their
// differences between versions come from a LoginShape (loginversion.go).
//
//	serverbound 0x00 Login Start          name, [signature data], [UUID]
//	clientbound 0x01 Encryption Request   server id, public key, verify token, [should authenticate]
//	serverbound 0x01 Encryption Response  shared secret, verify token | salt + signature
//	clientbound 0x03 Set Compression      threshold (1.8+)
//	clientbound 0x04 Login Plugin Request message id, channel, data (1.13+)
//	serverbound 0x02 Login Plugin Response message id, understood, data (1.13+)

// Login packet ids.
const (
	LoginStartID          = 0x00
	EncryptionRequestID   = 0x01
	EncryptionResponseID  = 0x01
	LoginSuccessID        = 0x02
	SetCompressionID      = 0x03
	LoginPluginRequestID  = 0x04
	LoginPluginResponseID = 0x02
	LoginDisconnectID     = 0x00
)

// maxLoginArray bounds the byte arrays of login packets: an RSA key or signature is at most a few
// hundred bytes, a chat key's signature 512.
const maxLoginArray = 4096

// ErrArrayTooLong is a login byte array longer than any real client sends.
var ErrArrayTooLong = errors.New("byte array longer than 4096 bytes")

// PlayerKey is the chat signing key a 1.19-1.19.2 client may put in Login Start.
type PlayerKey struct {
	Expiry    int64  // milliseconds since the epoch
	PublicKey []byte // X.509 DER
	Signature []byte // Mojang's signature over the key
}

// LoginStart is a parsed Login Start.
type LoginStart struct {
	Name string
	Key  *PlayerKey // 1.19-1.19.2, when the client sent one and the parser read it
	UUID [16]byte   // 1.19.1+, when HasUUID
	// HasUUID: the player's version sent one (and ParseLoginStart did not stop at a 1.19.1 key).
	HasUUID bool
}

// ParseLoginStartFrame parses the whole Login Start frame at the start of b in the given shape
// and returns it with the frame's length; ErrNeedMore while the frame has not fully arrived.
func ParseLoginStartFrame(b []byte, shape LoginShape) (LoginStart, int, error) {
	start, size, err := frameHead(b, MaxFrameLen, "login start")
	if err != nil {
		return LoginStart{}, 0, err
	}
	c := newCursor(b, start, size, "login start")
	c.packetID(LoginStartID)
	ls := c.loginStart(shape, true)
	c.end()
	if c.err != nil {
		return LoginStart{}, 0, c.err
	}
	return ls, start + size, nil
}

// AppendEncryptionRequest appends an Encryption Request frame asking the client to authenticate
// with the session server.
func AppendEncryptionRequest(dst []byte, shape LoginShape, serverID string, publicKey, verifyToken []byte) []byte {
	start := len(dst)
	dst = append(dst, EncryptionRequestID)
	dst = AppendString(dst, serverID)
	dst = appendByteArray(dst, shape.ShortArrays, publicKey)
	dst = appendByteArray(dst, shape.ShortArrays, verifyToken)
	if shape.ShouldAuthenticate {
		dst = append(dst, 1)
	}
	return prefixLength(dst, start)
}

// EncryptionResponse is a parsed Encryption Response. Either VerifyToken is set, or (1.19 to
// 1.19.2, a client with a chat key) Salt and Signature, the key's signature over the verify token
// and the salt.
type EncryptionResponse struct {
	SharedSecret []byte // RSA-encrypted
	VerifyToken  []byte // RSA-encrypted; nil when Signed
	Signed       bool
	Salt         int64
	Signature    []byte
}

// ParseEncryptionResponse parses the Encryption Response frame at the start of b; the slices
// alias b.
func ParseEncryptionResponse(b []byte, shape LoginShape) (EncryptionResponse, int, error) {
	start, size, err := frameHead(b, MaxFrameLen, "encryption response")
	if err != nil {
		return EncryptionResponse{}, 0, err
	}
	c := newCursor(b, start, size, "encryption response")
	c.packetID(EncryptionResponseID)
	var r EncryptionResponse
	r.SharedSecret = c.byteArray(shape.ShortArrays)
	if shape.ResponseSalt && !c.bool() {
		r.Signed, r.Salt, r.Signature = true, c.int64(), c.byteArray(false)
	} else {
		r.VerifyToken = c.byteArray(shape.ShortArrays)
	}
	c.end()
	if c.err != nil {
		return EncryptionResponse{}, 0, c.err
	}
	return r, start + size, nil
}

// PluginRequest is a parsed Login Plugin Request body.
type PluginRequest struct {
	MessageID int32
	Channel   string
	Data      []byte // aliases the body
}

// maxChannelBytes bounds a plugin channel name (vanilla: 32767 characters; real ones are short).
const maxChannelBytes = 256

// ParsePluginRequest parses the fields of a Login Plugin Request (a packet body after its id,
// as PacketID returns them).
func ParsePluginRequest(fields []byte) (PluginRequest, error) {
	c := newCursor(fields, 0, len(fields), "login plugin request")
	var p PluginRequest
	p.MessageID = c.varInt()
	p.Channel = c.utf8String(maxChannelBytes, ErrTooLarge)
	if c.err != nil {
		return PluginRequest{}, c.err
	}
	p.Data = fields[c.pos:]
	return p, nil
}

// AppendPluginResponseBody appends the body (packet id and fields) of a Login Plugin Response
// that answers message id with data.
func AppendPluginResponseBody(dst []byte, id int32, data []byte) []byte {
	dst = AppendVarInt(dst, LoginPluginResponseID)
	dst = AppendVarInt(dst, id)
	dst = append(dst, 1) // understood
	return append(dst, data...)
}

// ParseSetCompression returns the threshold of a Set Compression's fields.
func ParseSetCompression(fields []byte) (int32, error) {
	c := newCursor(fields, 0, len(fields), "set compression")
	threshold := c.varInt()
	c.end()
	return threshold, c.err
}

// appendByteArray appends a length-prefixed byte array: an int16 length in 1.7, a VarInt since.
func appendByteArray(dst []byte, short bool, b []byte) []byte {
	if short {
		return append(binary.BigEndian.AppendUint16(dst, uint16(len(b))), b...)
	}
	return append(AppendVarInt(dst, int32(len(b))), b...)
}

func (c *cursor) byteArray(short bool) []byte {
	at := c.pos
	var size int
	if short {
		size = int(int16(c.uint16()))
	} else {
		size = int(c.varInt())
	}
	switch {
	case c.err != nil:
		return nil
	case size < 0:
		c.failAt(at, ErrMalformed)
		return nil
	case size > maxLoginArray:
		c.failAt(at, ErrArrayTooLong)
		return nil
	}
	return c.take(size)
}

func (c *cursor) bool() bool {
	at := c.pos
	v := c.uint8()
	if c.err == nil && v > 1 {
		c.failAt(at, ErrMalformed)
	}
	return v == 1
}

func (c *cursor) int64() int64 {
	if b := c.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (c *cursor) uuid() (u [16]byte) {
	copy(u[:], c.take(16))
	return u
}
