package flood

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
)

// wsStream carries a flood's Minecraft bytes over an upgraded WebSocket: each write one masked
// binary message, reads the payload of the server's data messages (RFC 6455 framing, no
// fragment checks: the flood only needs to know bytes came).
type wsStream struct {
	conn net.Conn
	r    *bufio.Reader
	left uint64 // payload bytes left in the current frame
}

// errUpgradeRefused: the upgrade was answered with something else than 101.
var errUpgradeRefused = errors.New("flood: upgrade not answered 101")

// upgrade sends the upgrade request for path and reads the answer's headers.
func upgrade(c net.Conn, host, path string) (*wsStream, error) {
	if _, err := c.Write(UpgradeRequest(host, path, "")); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(c, 1024)
	status, err := readHeaders(r)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(status, []byte(status101)) {
		return nil, errUpgradeRefused
	}
	return &wsStream{conn: c, r: r}, nil
}

// readHeaders reads an HTTP answer's head and returns its status line.
func readHeaders(r *bufio.Reader) ([]byte, error) {
	status, err := r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	status = bytes.Clone(status)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return status, nil
		}
	}
}

func (s *wsStream) Write(p []byte) (int, error) {
	var mask [4]byte
	rand.Read(mask[:])
	if _, err := s.conn.Write(maskedFrame(p, mask)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// maskedFrame is p as one client-to-server binary message (FIN, masked with mask).
func maskedFrame(p []byte, mask [4]byte) []byte {
	head := []byte{0x82} // FIN, binary
	switch n := len(p); {
	case n < 126:
		head = append(head, 0x80|byte(n))
	case n <= 0xffff:
		head = binary.BigEndian.AppendUint16(append(head, 0x80|126), uint16(n))
	default:
		head = binary.BigEndian.AppendUint64(append(head, 0x80|127), uint64(n))
	}
	out := append(append(head, mask[:]...), p...)
	for i := range p {
		out[len(head)+4+i] ^= mask[i%4]
	}
	return out
}

func (s *wsStream) Read(p []byte) (int, error) {
	for s.left == 0 {
		if err := s.nextFrame(); err != nil {
			return 0, err
		}
	}
	n, err := s.r.Read(p[:min(uint64(len(p)), s.left)])
	s.left -= uint64(n)
	return n, err
}

// nextFrame reads a frame head; a close frame is the end, a ping or pong is skipped.
func (s *wsStream) nextFrame() error {
	var h [2]byte
	if _, err := io.ReadFull(s.r, h[:]); err != nil {
		return err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		_, err := io.ReadFull(s.r, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
		if err != nil {
			return err
		}
	case 127:
		var b [8]byte
		_, err := io.ReadFull(s.r, b[:])
		n = binary.BigEndian.Uint64(b[:])
		if err != nil {
			return err
		}
	}
	switch op := h[0] & 0x0f; {
	case op == 0x8:
		return io.EOF
	case op >= 0x9:
		_, err := s.r.Discard(int(n))
		return err
	}
	s.left = n
	return nil
}

func (s *wsStream) Close() error { return s.conn.Close() }

// status101 is how the head of an accepted upgrade's answer starts.
const status101 = "HTTP/1.1 101"

// headScan follows an upgrade answer's head across reads: its status line must start with
// status101, and it ends at the first blank line.
type headScan struct {
	seen int // bytes of the head so far
	crlf int // how much of "\r\n\r\n" the last bytes matched
}

// scan takes the next bytes of the answer: done when the head ended (rest is what followed
// it), ok false when the status is not 101.
func (h *headScan) scan(b []byte) (rest []byte, done, ok bool) {
	const blank = "\r\n\r\n"
	for i, x := range b {
		if h.seen < len(status101) && x != status101[h.seen] {
			return nil, false, false
		}
		h.seen++
		switch {
		case x == blank[h.crlf]:
			h.crlf++
		case x == '\r':
			h.crlf = 1
		default:
			h.crlf = 0
		}
		if h.crlf == len(blank) {
			return b[i+1:], true, true
		}
	}
	return nil, false, true
}
