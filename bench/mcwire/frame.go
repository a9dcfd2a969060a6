package mcwire

import "github.com/moonbridge/moonbridge/relay"

// AppendFrame appends one frame: the length prefix, the packet id and fields.
func AppendFrame(dst []byte, id int32, fields []byte) []byte {
	dst = relay.AppendVarInt(dst, int32(relay.VarIntLen(id)+len(fields)))
	dst = relay.AppendVarInt(dst, id)
	return append(dst, fields...)
}

// AppendString appends a Minecraft string: VarInt byte length, then UTF-8.
func AppendString(dst []byte, s string) []byte {
	dst = relay.AppendVarInt(dst, int32(len(s)))
	return append(dst, s...)
}

// PacketID splits a frame body (what relay.ReadFrame returns) into its packet id and fields.
func PacketID(body []byte) (id int32, fields []byte, err error) {
	id, n, err := relay.ReadVarInt(body)
	if err != nil {
		return 0, nil, err
	}
	return id, body[n:], nil
}
