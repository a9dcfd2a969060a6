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
	// ClassTLSHello sends one canned TLS ClientHello (crypto/tls's default, the same for the
	// whole flood) and reads the first byte of the server's answer: the proxy pays a full
	// handshake's key exchange and signature, the generator no cryptography. Not in a full run.
	ClassTLSHello = "tlshello"
)

// Classes are every flood class.
var Classes = []string{ClassIdle, ClassGarbage, ClassMalformed, ClassPing, ClassOffline, ClassOnline, ClassSlowTLS, ClassSlowWS, ClassBadToken}

// extraClasses are the classes a full run leaves out; --classes may name them.
var extraClasses = []string{ClassNoAccount, ClassTLSHello}

// TCPClasses are those that need nothing but TCP from the target: what an external TCP proxy
// (HAProxy) can be flooded with.
var TCPClasses = []string{ClassIdle, ClassGarbage, ClassMalformed, ClassPing, ClassOffline}

// Transports a flood speaks to the listener: raw TCP, a WebSocket upgrade (ws), or TLS then
// a WebSocket upgrade (wss), the upgrade for the classes that carry Minecraft bytes.
const (
	TransportTCP = "tcp"
	TransportWS  = "ws"
	TransportWSS = "wss"
)

// Transports are every transport a flood speaks.
var Transports = []string{TransportTCP, TransportWS, TransportWSS}

// CheckClass refuses an unknown class.
func CheckClass(class string) error {
	if !slices.Contains(Classes, class) && !slices.Contains(extraClasses, class) {
		return fmt.Errorf("flood: unknown class %q (want one of %v or %v)", class, Classes, extraClasses)
	}
	return nil
}

// rawOnAnyTransport are the classes whose first bytes go straight onto TCP even when the step's
// transport is ws or wss: they test what comes before TLS or HTTP.
var rawOnAnyTransport = []string{ClassIdle, ClassGarbage, ClassSlowTLS, ClassTLSHello}
