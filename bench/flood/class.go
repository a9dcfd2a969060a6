package flood

import (
	"fmt"
	"slices"
)

// Classes, in the order a full run floods them.
const (
	ClassIdle      = "idle"
	ClassGarbage   = "garbage"
	ClassMalformed = "malformed"
	ClassPing      = "ping"
	ClassOffline   = "offline"
	ClassOnline    = "online"
	ClassSlowTLS   = "slowtls"
	ClassSlowWS    = "slowws"
	ClassBadToken  = "badtoken"
	// ClassNoAccount logs in at the online route as a client without an account: it answers
	// the Encryption Request without joining at the session server. Not in a full run.
	ClassNoAccount = "noaccount"
)

// Classes are every flood class.
var Classes = []string{ClassIdle, ClassGarbage, ClassMalformed, ClassPing, ClassOffline, ClassOnline, ClassSlowTLS, ClassSlowWS, ClassBadToken}

// TCPClasses are those that need nothing but TCP from the target: what an external TCP proxy
// (HAProxy) can be flooded with.
var TCPClasses = []string{ClassIdle, ClassGarbage, ClassMalformed, ClassPing, ClassOffline}

// Transports a flood speaks to the listener: raw TCP, or TLS (then a WebSocket upgrade for the
// classes that carry Minecraft bytes).
const (
	TransportTCP = "tcp"
	TransportWSS = "wss"
)

// CheckClass refuses an unknown class.
func CheckClass(class string) error {
	if !slices.Contains(Classes, class) && class != ClassNoAccount {
		return fmt.Errorf("flood: unknown class %q (want one of %v or %s)", class, Classes, ClassNoAccount)
	}
	return nil
}

// rawOnAnyTransport are the classes whose first bytes go straight onto TCP even when the step's
// transport is wss: they test what comes before TLS.
var rawOnAnyTransport = []string{ClassIdle, ClassGarbage, ClassSlowTLS}
