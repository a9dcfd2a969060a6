package tracing

import (
	"encoding/hex"
	"net/http"
)

// parent is a remote span a join may be the child of: a W3C traceparent header's.
type parent struct {
	traceID [16]byte
	spanID  [8]byte
	sampled bool
	valid   bool
}

// traceparentLen is the length of a version 00 header: 00-<32 hex>-<16 hex>-<2 hex>.
const traceparentLen = 55

// parseParent reads header's traceparent (W3C Trace Context); the zero parent when it has
// none, or one that is not well formed (a later version's is read as far as 00 defines it).
func parseParent(header http.Header) parent {
	v := header.Get("Traceparent")
	if len(v) < traceparentLen || v[2] != '-' || v[35] != '-' || v[52] != '-' ||
		(len(v) > traceparentLen && (v[:2] == "00" || v[traceparentLen] != '-')) || v[:2] == "ff" {
		return parent{}
	}
	var p parent
	var version, flags [1]byte
	if !decodeHex(version[:], v[:2]) || !decodeHex(p.traceID[:], v[3:35]) || !decodeHex(p.spanID[:], v[36:52]) ||
		!decodeHex(flags[:], v[53:55]) || p.traceID == [16]byte{} || p.spanID == [8]byte{} {
		return parent{}
	}
	p.sampled, p.valid = flags[0]&1 == 1, true
	return p
}

// decodeHex decodes lower-case hex s into dst, which it fills exactly.
func decodeHex(dst []byte, s string) bool {
	for _, c := range s {
		if ('0' > c || c > '9') && ('a' > c || c > 'f') {
			return false
		}
	}
	n, err := hex.Decode(dst, []byte(s))
	return err == nil && n == len(dst)
}
