package play

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestTableCoversEveryProtocol(t *testing.T) {
	for p := FirstProtocol; p <= lastProtocol; p++ {
		if !Supports(p) {
			t.Errorf("no ids for protocol %d", p)
		}
		if _, err := NewTracker(p); err != nil {
			t.Errorf("NewTracker(%d): %v", p, err)
		}
	}
	for _, p := range []int32{FirstProtocol - 1, lastProtocol + 1, 47, -1} {
		var ue *UnsupportedError
		_, err := NewTracker(p)
		if Supports(p) || !errors.As(err, &ue) || ue.Protocol != p || !strings.Contains(err.Error(), fmt.Sprint(p)) {
			t.Errorf("protocol %d: Supports %v, NewTracker error %v", p, Supports(p), err)
		}
	}
}

// The ids as minecraft-data 3.119.0 has them (data/pc/<release>/protocol.json), read by hand.
func TestTableKnownIDs(t *testing.T) {
	for _, tc := range []struct {
		protocol                              int32
		configTransfer, playTransfer, bundle  int32
		playStartConfig, playKick, playCookie int32
	}{
		{766, 0x0B, 0x73, 0, 0x69, 0x1D, 0x6B}, // 1.20.5
		{767, 0x0B, 0x73, 0, 0x69, 0x1D, 0x6B}, // 1.21.1
		{768, 0x0B, 0x7A, 0, 0x70, 0x1D, 0x72}, // 1.21.3
		{770, 0x0B, 0x7A, 0, 0x6F, 0x1C, 0x71}, // 1.21.5
		{773, 0x0B, 0x7F, 0, 0x74, 0x20, 0x76}, // 1.21.9
		{774, 0x0B, 0x7F, 0, 0x74, 0x20, 0x76}, // 1.21.11
		{775, 0x0B, 0x81, 0, 0x76, 0x20, 0x78}, // 26.1
	} {
		ids := protocolTable[tc.protocol]
		got := [6]int32{ids.Configuration.Transfer, ids.Play.Transfer, ids.BundleDelimiter, ids.Play.Switch, ids.Play.Disconnect, ids.Play.StoreCookie}
		want := [6]int32{tc.configTransfer, tc.playTransfer, tc.bundle, tc.playStartConfig, tc.playKick, tc.playCookie}
		if got != want {
			t.Errorf("protocol %d: %x, want %x", tc.protocol, got, want)
		}
		c := ids.Configuration
		if c.Disconnect != 0x02 || c.Switch != 0x03 || c.StoreCookie != 0x0A {
			t.Errorf("protocol %d: configuration %+v", tc.protocol, c)
		}
	}
	if CookieResponseID != 0x04 || cookieRequestID != 0x05 {
		t.Errorf("login cookie ids 0x%02x, 0x%02x; want 0x04, 0x05", CookieResponseID, cookieRequestID)
	}
}
