package handover

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Version is the format this binary speaks beyond the base (see the package doc). Version 2
// added the moved sessions (Session, Taken, Refused); a version 1 binary takes the listeners
// only.
const Version uint16 = 2

// Kind says what a message is.
type Kind uint8

const (
	Hello  Kind = 1
	Ready  Kind = 2
	Failed Kind = 3
	// Session is one established session moved with its sockets (session.go); Taken and
	// Refused are the new process's answer to it.
	Session Kind = 16
	Taken   Kind = 17
	Refused Kind = 18
)

func (k Kind) String() string {
	switch k {
	case Hello:
		return "hello"
	case Ready:
		return "ready"
	case Failed:
		return "failed"
	case Session:
		return "session"
	case Taken:
		return "taken"
	case Refused:
		return "refused"
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

// base says whether k is one of the kinds every version reads alike.
func (k Kind) base() bool { return k == Hello || k == Ready || k == Failed }

const (
	headerLen = 12
	// MaxBody bounds a message's body; a reader never allocates more than this and the header.
	MaxBody = 64 << 10
	// maxBuild bounds a Hello's build version and maxReason a Failed's reason.
	maxBuild  = 256
	maxReason = 4 << 10
)

var magic = [4]byte{'M', 'B', 'H', 'O'}

// Message is one message as read or to be sent.
type Message struct {
	Version uint16
	Kind    Kind
	Body    []byte
}

// FormatError says why a packet is not a message of this format.
type FormatError struct{ Reason string }

func (e *FormatError) Error() string { return "handover: bad message: " + e.Reason }

func badf(format string, args ...any) error { return &FormatError{fmt.Sprintf(format, args...)} }

// ErrUnexpected is a well-formed message that may not come now or from this side.
var ErrUnexpected = errors.New("handover: unexpected message")

// appendMessage encodes m after b.
func appendMessage(b []byte, m Message) ([]byte, error) {
	if len(m.Body) > MaxBody {
		return nil, badf("body of %d bytes, at most %d", len(m.Body), MaxBody)
	}
	b = append(b, magic[:]...)
	b = binary.BigEndian.AppendUint16(b, m.Version)
	b = append(b, byte(m.Kind), 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(m.Body)))
	return append(b, m.Body...), nil
}

// parseMessage decodes one whole packet; the body aliases p.
func parseMessage(p []byte) (Message, error) {
	if len(p) < headerLen {
		return Message{}, badf("%d bytes, shorter than the %d-byte header", len(p), headerLen)
	}
	if [4]byte(p[:4]) != magic {
		return Message{}, badf("magic %q, want %q", p[:4], magic[:])
	}
	if p[7] != 0 {
		return Message{}, badf("reserved byte %d, want 0", p[7])
	}
	length := binary.BigEndian.Uint32(p[8:12])
	if length > MaxBody {
		return Message{}, badf("length %d, at most %d", length, MaxBody)
	}
	if int(length) != len(p)-headerLen {
		return Message{}, badf("length %d, but %d bytes follow the header", length, len(p)-headerLen)
	}
	m := Message{Version: binary.BigEndian.Uint16(p[4:6]), Kind: Kind(p[6]), Body: p[headerLen:]}
	return m, m.check()
}

// check refuses what this version does not read: a kind of another version than its own, or a
// base kind whose body breaks its bounds.
func (m Message) check() error {
	if !m.Kind.base() && m.Version != Version {
		return badf("%s of version %d; this binary reads version %d", m.Kind, m.Version, Version)
	}
	switch m.Kind {
	case Hello:
		return checkText("build version", m.Body, maxBuild)
	case Ready:
		if len(m.Body) != 0 {
			return badf("ready with a body of %d bytes", len(m.Body))
		}
	case Failed, Refused:
		return checkText("reason", m.Body, maxReason)
	case Taken:
		if len(m.Body) != 0 {
			return badf("taken with a body of %d bytes", len(m.Body))
		}
	case Session:
		if len(m.Body) == 0 {
			return badf("session without a body")
		}
	default:
		return badf("%s: not a kind of version %d", m.Kind, Version)
	}
	return nil
}

func checkText(what string, b []byte, limit int) error {
	if len(b) > limit {
		return badf("%s of %d bytes, at most %d", what, len(b), limit)
	}
	if !utf8.Valid(b) {
		return badf("%s is not UTF-8", what)
	}
	return nil
}
