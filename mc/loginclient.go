package mc

import "encoding/binary"

// The client's half of the login packets, for players that log in through the proxy in tests
// and benchmarks (an online-mode player needs to answer the Encryption Request).

// AppendLoginStart appends a Login Start frame in the given shape; the fields the shape does not
// carry are left out.
func AppendLoginStart(dst []byte, shape LoginShape, ls LoginStart) []byte {
	start := len(dst)
	dst = append(dst, LoginStartID)
	dst = AppendString(dst, ls.Name)
	if shape.LoginStartKey {
		dst = appendBool(dst, ls.Key != nil)
		if ls.Key != nil {
			dst = binary.BigEndian.AppendUint64(dst, uint64(ls.Key.Expiry))
			dst = appendByteArray(dst, false, ls.Key.PublicKey)
			dst = appendByteArray(dst, false, ls.Key.Signature)
		}
	}
	switch shape.LoginStartUUID {
	case UUIDOptional:
		dst = appendBool(dst, ls.HasUUID)
		if ls.HasUUID {
			dst = append(dst, ls.UUID[:]...)
		}
	case UUIDBinary:
		dst = append(dst, ls.UUID[:]...)
	}
	return prefixLength(dst, start)
}

// EncryptionRequest is a parsed Encryption Request; the slices alias the input.
type EncryptionRequest struct {
	ServerID           string
	PublicKey          []byte
	VerifyToken        []byte
	ShouldAuthenticate bool // 1.20.5+; true before
}

// ParseEncryptionRequest parses the fields of an Encryption Request (a body after its id).
func ParseEncryptionRequest(fields []byte, shape LoginShape) (EncryptionRequest, error) {
	c := newCursor(fields, 0, len(fields), "encryption request")
	r := EncryptionRequest{ServerID: c.utf8String(20*3, ErrTooLarge), ShouldAuthenticate: true}
	r.PublicKey = c.byteArray(shape.ShortArrays)
	r.VerifyToken = c.byteArray(shape.ShortArrays)
	if shape.ShouldAuthenticate {
		r.ShouldAuthenticate = c.bool()
	}
	c.end()
	return r, c.err
}

// AppendEncryptionResponse appends an Encryption Response frame: the verify token, or (Signed,
// 1.19-1.19.2) the salt and the signature.
func AppendEncryptionResponse(dst []byte, shape LoginShape, r EncryptionResponse) []byte {
	start := len(dst)
	dst = append(dst, EncryptionResponseID)
	dst = appendByteArray(dst, shape.ShortArrays, r.SharedSecret)
	if shape.ResponseSalt {
		dst = appendBool(dst, !r.Signed)
	}
	if r.Signed {
		dst = binary.BigEndian.AppendUint64(dst, uint64(r.Salt))
		dst = appendByteArray(dst, false, r.Signature)
	} else {
		dst = appendByteArray(dst, shape.ShortArrays, r.VerifyToken)
	}
	return prefixLength(dst, start)
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, 1)
	}
	return append(dst, 0)
}
