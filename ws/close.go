package ws

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"
)

// CloseCode is a close frame's status code (RFC 6455 section 7.4).
type CloseCode uint16

// Close codes. NoStatus, Abnormal and TLSHandshake are never sent on the
// wire: they describe a close without a code, a connection lost without a
// close frame, and a failed TLS handshake.
const (
	CloseNormal          CloseCode = 1000
	CloseGoingAway       CloseCode = 1001
	CloseProtocolError   CloseCode = 1002
	CloseUnsupportedData CloseCode = 1003
	CloseNoStatus        CloseCode = 1005
	CloseAbnormal        CloseCode = 1006
	CloseInvalidPayload  CloseCode = 1007
	ClosePolicyViolation CloseCode = 1008
	CloseMessageTooBig   CloseCode = 1009
	CloseMandatoryExt    CloseCode = 1010
	CloseInternalError   CloseCode = 1011
	CloseServiceRestart  CloseCode = 1012
	CloseTryAgainLater   CloseCode = 1013
	CloseBadGateway      CloseCode = 1014
	CloseTLSHandshake    CloseCode = 1015
)

// closeCodeNames are the codes' meanings in RFC 6455 section 7.4.1 and the IANA registry.
var closeCodeNames = map[CloseCode]string{
	CloseNormal: "normal closure", CloseGoingAway: "going away", CloseProtocolError: "protocol error",
	CloseUnsupportedData: "unsupported data", CloseNoStatus: "no status", CloseAbnormal: "abnormal closure",
	CloseInvalidPayload: "invalid payload", ClosePolicyViolation: "policy violation",
	CloseMessageTooBig: "message too big", CloseMandatoryExt: "mandatory extension",
	CloseInternalError: "internal error", CloseServiceRestart: "service restart",
	CloseTryAgainLater: "try again later", CloseBadGateway: "bad gateway", CloseTLSHandshake: "TLS handshake",
}

// String is the code's meaning in words ("going away"), or "close code N" for a code without
// one (the 3000-4999 ranges).
func (c CloseCode) String() string {
	if name, ok := closeCodeNames[c]; ok {
		return name
	}
	return "close code " + strconv.Itoa(int(c))
}

// maxCloseReason keeps code plus reason within a control frame.
const maxCloseReason = MaxControlPayload - 2

// IsValidOnWire reports whether c may appear in a close frame: the RFC's
// defined codes except 1004-1006 and 1015, the IANA-registered 1012-1014,
// and the 3000-4999 ranges for libraries and applications.
func (c CloseCode) IsValidOnWire() bool {
	switch {
	case c >= 1000 && c <= 1003, c >= 1007 && c <= 1014:
		return true
	case c >= 3000 && c <= 4999:
		return true
	}
	return false
}

// ParseClosePayload splits a close frame's payload into code and reason.
// An empty payload means CloseNoStatus. A one-byte payload or a code that
// may not be sent is a 1002 *ProtocolError; a reason that is not UTF-8 is a
// 1007 one. The reason aliases p.
func ParseClosePayload(p []byte) (CloseCode, []byte, error) {
	switch {
	case len(p) == 0:
		return CloseNoStatus, nil, nil
	case len(p) == 1:
		return 0, nil, protocolError(CloseProtocolError, "close payload of one byte")
	}
	code := CloseCode(binary.BigEndian.Uint16(p))
	if !code.IsValidOnWire() {
		return 0, nil, protocolError(CloseProtocolError, "close code not allowed on the wire")
	}
	reason := p[2:]
	if !utf8.Valid(reason) {
		return 0, nil, protocolError(CloseInvalidPayload, "close reason is not valid UTF-8")
	}
	return code, reason, nil
}

// PutClosePayload writes code and reason into dst (which must hold
// MaxControlPayload bytes) and returns the length. CloseNoStatus writes an
// empty payload. A reason too long for a control frame is cut at a UTF-8
// boundary.
func PutClosePayload(dst []byte, code CloseCode, reason string) int {
	if code == CloseNoStatus {
		return 0
	}
	binary.BigEndian.PutUint16(dst, uint16(code))
	return 2 + copy(dst[2:], truncateUTF8(reason, maxCloseReason))
}

// truncateUTF8 cuts s to at most n bytes without splitting a rune.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
