package mc

import (
	"bufio"
	"bytes"
)

// Hello is what a Minecraft client sends first: a handshake frame, or from a
// pre-1.7 client a legacy server-list ping.
type Hello struct {
	Legacy    *LegacyPing // non-nil for a legacy ping, which gets AppendLegacyKick
	Handshake Handshake   // the handshake when Legacy is nil
}

// IsPing says whether the hello asks for the server list: a legacy ping, or a handshake whose
// next state is status.
func (h Hello) IsPing() bool { return h.Legacy != nil || h.Handshake.NextState == NextStatus }

// ParseHello parses the first bytes of a Minecraft connection and returns
// the hello with the number of bytes it used. b should be everything
// received so far; as in vanilla, a lone FE or FE 01 is a legacy ping (see
// legacy.go). maxBody bounds the handshake body as in ParseHandshake.
func ParseHello(b []byte, maxBody int) (Hello, int, error) {
	if isLegacyPing(b) {
		p, n, err := parseLegacyPing(b)
		if err != nil {
			return Hello{}, 0, err
		}
		return Hello{Legacy: &p}, n, nil
	}
	h, n, err := ParseHandshake(b, maxBody)
	return Hello{Handshake: h}, n, err
}

// ReadHello reads the hello from r. Unlike ParseHello's, the returned Raw
// bytes are the caller's own, since r reuses its buffer.
func ReadHello(r *bufio.Reader, maxBody int) (Hello, error) {
	h, err := ReadParsed(r, func(b []byte) (Hello, int, error) { return ParseHello(b, maxBody) })
	h.Handshake.Raw = bytes.Clone(h.Handshake.Raw)
	return h, err
}
