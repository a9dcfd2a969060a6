package mc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An owner's text (a server-list MOTD, a disconnect message) is either plain text, with §
// formatting codes, or a JSON text component ({"text":"Down for work","color":"gold"}), which
// it is when it starts with { or [. Both end up as a JSON text component, the form the status
// description and the login Disconnect carry.

// MaxTextBytes bounds an owner's text: a MOTD shows two lines and a disconnect a few, and the
// status JSON that carries a MOTD is itself bounded (maxStatusChars).
const MaxTextBytes = 4096

// maxTextDepth bounds how deeply a text component nests (extra inside extra): clients render
// them recursively.
const maxTextDepth = 16

// ErrText means a text is not one a client can be sent.
var ErrText = errors.New("mc: not a text a client can show")

// ParseText checks an owner's text and returns it as a compact JSON text component: plain text
// becomes {"text":...}. It refuses a text over MaxTextBytes, invalid UTF-8, control characters
// other than a newline in plain text, and a component that is not a JSON object or array or
// nests deeper than maxTextDepth.
func ParseText(s string) (json.RawMessage, error) {
	switch {
	case len(s) > MaxTextBytes:
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrText, len(s), MaxTextBytes)
	case !utf8.ValidString(s):
		return nil, fmt.Errorf("%w: not UTF-8", ErrText)
	}
	trimmed := strings.TrimSpace(s)
	if strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
		return parseComponent(trimmed)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }); i >= 0 {
		return nil, fmt.Errorf("%w: a control character at byte %d", ErrText, i)
	}
	return json.Marshal(textComponent{Text: s})
}

// parseComponent checks a JSON text component and compacts it.
func parseComponent(s string) (json.RawMessage, error) {
	if !json.Valid([]byte(s)) {
		return nil, fmt.Errorf("%w: starts as a JSON text component but is not valid JSON", ErrText)
	}
	if depth := jsonDepth(s); depth > maxTextDepth {
		return nil, fmt.Errorf("%w: nests %d deep, at most %d", ErrText, depth, maxTextDepth)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(s)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrText, err)
	}
	return out.Bytes(), nil
}

// jsonDepth is how deeply valid JSON s nests objects and arrays.
func jsonDepth(s string) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// PlainText is what a text component says without its styles: its text, then its extra's, in
// order (a string stands for itself). It is for packets this proxy writes as a plain string
// (the play state's Disconnect).
func PlainText(component json.RawMessage) string {
	var b strings.Builder
	appendPlain(&b, component, 0)
	return b.String()
}

func appendPlain(b *strings.Builder, raw json.RawMessage, depth int) {
	if depth > maxTextDepth {
		return
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		b.WriteString(text)
		return
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		for _, part := range list {
			appendPlain(b, part, depth+1)
		}
		return
	}
	var c struct {
		Text  string            `json:"text"`
		Extra []json.RawMessage `json:"extra"`
	}
	if json.Unmarshal(raw, &c) == nil {
		b.WriteString(c.Text)
		for _, part := range c.Extra {
			appendPlain(b, part, depth+1)
		}
	}
}

// AppendLoginDisconnectText appends the login-state disconnect frame showing component, a text
// ParseText returned.
func AppendLoginDisconnectText(dst []byte, component json.RawMessage) []byte {
	return appendStringPacket(dst, 0x00, component)
}
