package auth

import (
	"testing"

	"github.com/rs/zerolog"
)

// TestValidTransferCookieSkipsTheMeter: a player another instance moved here with a valid cookie
// waits for no turn of the login meter; any other player waits for the route's.
func TestValidTransferCookieSkipsTheMeter(t *testing.T) {
	m := NewMeter(MeterSettings{}, zerolog.Nop())
	c := &Config{Meter: m}
	for cookie, want := range map[Cookie]*Meter{CookieValid: nil, CookieAbsent: m, CookieRejected: m, CookieReplayed: m, CookieNotAsked: m} {
		if got := c.meter(&Player{Cookie: cookie}); got != want {
			t.Errorf("cookie %v: meter %p, want %p", cookie, got, want)
		}
	}
}
