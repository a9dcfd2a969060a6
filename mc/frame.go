package mc

// MaxFrameLen is the largest frame body vanilla accepts: its length prefix is
// at most 3 VarInt bytes. Limits below it are for frames whose content is
// known, such as the handshake; relayed game traffic is never capped below it.
const MaxFrameLen = 1<<21 - 1

// ReadFrame splits the frame at the start of b into its body (packet id and
// fields) and the total number of bytes the frame takes. A body longer than
// maxBody (clamped to MaxFrameLen) is ErrTooLarge, found as soon as the
// length prefix shows it, before the body arrives. body aliases b.
func ReadFrame(b []byte, maxBody int) (body []byte, n int, err error) {
	start, size, err := frameHead(b, maxBody, "frame")
	if err != nil {
		return nil, 0, err
	}
	if len(b) < start+size {
		return nil, 0, ErrNeedMore
	}
	return b[start : start+size], start + size, nil
}

// frameHead decodes and bounds a frame's length prefix; it returns where the
// body starts and how long it is. A prefix that already needs more bytes than
// maxBody's own encoding can only lead to a value above maxBody, so it is
// refused without waiting for the rest.
func frameHead(b []byte, maxBody int, layer string) (start, size int, err error) {
	maxBody = min(max(maxBody, 0), MaxFrameLen)
	v, n, err := decodeVarInt(b)
	switch {
	case err == ErrNeedMore && len(b) < VarIntLen(int32(maxBody)):
		return 0, 0, ErrNeedMore
	case err == ErrNeedMore:
		return 0, 0, protocolError(layer, 0, ErrTooLarge)
	case err != nil:
		return 0, 0, protocolError(layer, 0, err)
	case v < 0 || int(v) > maxBody:
		return 0, 0, protocolError(layer, 0, ErrTooLarge)
	}
	return n, int(v), nil
}

// prefixLength turns dst[start:] into a frame by inserting its length before
// it. The body is written first because the prefix's width depends on the
// body's size; moving a small body once is cheaper than measuring it twice.
func prefixLength(dst []byte, start int) []byte {
	size := len(dst) - start
	width := VarIntLen(int32(size))
	dst = append(dst, make([]byte, width)...)
	copy(dst[start+width:], dst[start:start+size])
	AppendVarInt(dst[start:start], int32(size))
	return dst
}

// AppendFrame appends one whole frame: the length prefix, the packet id and
// fields, for callers that have the fields at hand (the status and
// disconnect answers build theirs in place).
func AppendFrame(dst []byte, id int32, fields []byte) []byte {
	dst = AppendVarInt(dst, int32(VarIntLen(id)+len(fields)))
	dst = AppendVarInt(dst, id)
	return append(dst, fields...)
}

// AppendString appends a Minecraft string: VarInt byte length, then UTF-8.
func AppendString(dst []byte, s string) []byte {
	dst = AppendVarInt(dst, int32(len(s)))
	return append(dst, s...)
}

// PacketID splits a frame body (what ReadFrame returns) into its packet id
// and fields.
func PacketID(body []byte) (id int32, fields []byte, err error) {
	id, n, err := ReadVarInt(body)
	if err != nil {
		return 0, nil, err
	}
	return id, body[n:], nil
}
