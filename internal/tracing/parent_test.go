package tracing

import (
	"net/http"
	"testing"
)

func TestParseParent(t *testing.T) {
	const id, span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, tc := range []struct {
		header        string
		valid, sample bool
	}{
		{"00-" + id + "-" + span + "-01", true, true},
		{"00-" + id + "-" + span + "-00", true, false},
		{"01-" + id + "-" + span + "-01-later-fields", true, true}, // a later version, read as 00
		{"00-" + id + "-" + span + "-01-extra", false, false},      // 00 has nothing after the flags
		{"ff-" + id + "-" + span + "-01", false, false},
		{"00-" + "4BF92F3577B34DA6A3CE929D0E0E4736" + "-" + span + "-01", false, false},
		{"00-00000000000000000000000000000000-" + span + "-01", false, false},
		{"00-" + id + "-0000000000000000-01", false, false},
		{"00-" + id + "-" + span + "-0g", false, false},
		{"00-" + id + "_" + span + "-01", false, false},
		{"", false, false},
	} {
		p := parseParent(http.Header{"Traceparent": {tc.header}})
		if p.valid != tc.valid || p.sampled != tc.sample {
			t.Errorf("%q: valid %v sampled %v, want %v %v", tc.header, p.valid, p.sampled, tc.valid, tc.sample)
		}
	}
}
