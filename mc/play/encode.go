package play

import "github.com/moonbridge/moonbridge/mc"

// The encoders append one whole frame in the tracker's current state, protocol and
// compression. With compression on, the frame carries data length 0 and the packet
// uncompressed: vanilla's decoder takes a data length of 0 as "not compressed" at any size (it
// checks the threshold only for compressed packets, and only on the server), as
// node-minecraft-protocol's does. Outside configuration and play there is no such packet, and
// they return dst as it is; call them when the tracker is Movable.

// AppendTransfer appends a Transfer to host:port; CheckTransferTarget says whether a client
// accepts them.
func (t *Tracker) AppendTransfer(dst []byte, host string, port uint16) []byte {
	ids := t.stateIDs()
	if ids == nil {
		return dst
	}
	dst = t.appendHead(dst, ids.Transfer, stringLen(host)+mc.VarIntLen(int32(port)))
	dst = mc.AppendString(dst, host)
	return mc.AppendVarInt(dst, int32(port))
}

// AppendStoreCookie appends a Store Cookie that has the client keep payload under key, an
// identifier such as "moonbridge:transfer", across a transfer; CheckCookie says whether a
// client accepts them.
func (t *Tracker) AppendStoreCookie(dst []byte, key string, payload []byte) []byte {
	ids := t.stateIDs()
	if ids == nil {
		return dst
	}
	dst = t.appendHead(dst, ids.StoreCookie, stringLen(key)+bytesLen(payload))
	dst = mc.AppendString(dst, key)
	return appendBytes(dst, payload)
}

// AppendDisconnect appends a Disconnect that shows reason to the player, as a text component in
// network NBT: a root String tag (nbt.go). A reason longer than an NBT string holds (65535
// bytes of modified UTF-8) is cut there.
func (t *Tracker) AppendDisconnect(dst []byte, reason string) []byte {
	ids := t.stateIDs()
	if ids == nil {
		return dst
	}
	reason = fitNBTString(reason)
	dst = t.appendHead(dst, ids.Disconnect, nbtStringTagLen(reason))
	return appendNBTStringTag(dst, reason)
}

// AppendCookieRequest appends the login state's Cookie Request for key, uncompressed: for the
// destination of a transfer, which asks before any Set Compression.
func AppendCookieRequest(dst []byte, key string) []byte {
	dst = appendHead(dst, false, cookieRequestID, stringLen(key))
	return mc.AppendString(dst, key)
}

// stateIDs are the packet ids of the current state; nil in login.
func (t *Tracker) stateIDs() *stateIDs {
	switch t.state {
	case Configuration:
		return &t.ids.Configuration
	case Play:
		return &t.ids.Play
	}
	return nil
}

func (t *Tracker) appendHead(dst []byte, id int32, fieldsLen int) []byte {
	return appendHead(dst, t.threshold >= 0, id, fieldsLen)
}

// appendHead appends a frame's length prefix, its data length 0 when compressed, and the packet
// id, for fields of fieldsLen bytes that the caller appends next. Measuring the fields first
// writes the frame in one pass, with no body to move behind its prefix.
func appendHead(dst []byte, compressed bool, id int32, fieldsLen int) []byte {
	size := mc.VarIntLen(id) + fieldsLen
	if compressed {
		size++
	}
	dst = mc.AppendVarInt(dst, int32(size))
	if compressed {
		dst = append(dst, 0)
	}
	return mc.AppendVarInt(dst, id)
}

// stringLen is the wire length of a String, bytesLen of a byte array: a VarInt length, then the
// bytes.
func stringLen(s string) int { return mc.VarIntLen(int32(len(s))) + len(s) }
func bytesLen(b []byte) int  { return mc.VarIntLen(int32(len(b))) + len(b) }

// appendBytes appends a byte array, as mc.AppendString does a String.
func appendBytes(dst, b []byte) []byte {
	return append(mc.AppendVarInt(dst, int32(len(b))), b...)
}
