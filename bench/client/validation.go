package client

import "fmt"

// ValidationError is a byte that came back different from what the profile says it must be.
// Any one fails the run.
type ValidationError struct {
	Session string // player name
	Stage   string // "login", "login burst" or "round trip"
	Seq     uint64 // round trip, for Stage "round trip"
	Offset  int    // first differing byte within the stage's expected bytes
	Got     byte
	Want    byte
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("client %s: %s %d: byte %d is %#02x, want %#02x", e.Session, e.Stage, e.Seq, e.Offset, e.Got, e.Want)
}

// firstDifference is the offset of the first byte where got and want differ, or -1.
func firstDifference(got, want []byte) int {
	for i := range want {
		if got[i] != want[i] {
			return i
		}
	}
	return -1
}

// ConnectError is a session that could not be opened: the dial, or for ws and wss the TLS or
// HTTP upgrade handshake, failed.
type ConnectError struct{ Err error }

func (e *ConnectError) Error() string { return "connect: " + e.Err.Error() }

func (e *ConnectError) Unwrap() error { return e.Err }
