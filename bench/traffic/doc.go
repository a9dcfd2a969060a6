// Package traffic defines what flows after login, from both ends: the client's round trips with
// the exact bytes it expects back, and the backend's answers. Both ends derive every byte from
// the round trip's sequence number, so the client checks each clientbound packet byte for byte
// without remembering what it sent.
//
// Profiles (from the Java MoonBridge's records of 2026-10-05 and 2026-10-23, docs/design.md
// "Where this comes from"):
//
//	echo    each round trip is --burst frames of --payload bytes in one write; the backend echoes
//	        every frame, one write per read batch
//	modded  each round trip is one client tick of C17 custom payload, C04 position and C03
//	        on-ground; the backend answers C03 with that tick's clientbound mix from 256
//	        fixed-seed templates; after login it sends a 2.1 MB burst (70 x 30,000 B S3F)
package traffic

import "fmt"

// Profile is one traffic shape.
type Profile interface {
	Name() string
	// LoginBurst is what the backend sends after the client's position confirm, checked byte
	// for byte by the client; empty when the profile has none.
	LoginBurst() Burst
	// Request fills r with what the client sends in round trip seq.
	Request(seq uint64, r *Request)
	// Response appends to dst exactly what must come back for round trip seq, and says how
	// many frames that is.
	Response(dst []byte, seq uint64) ([]byte, int)
	// NewAnswerer returns the backend's state for one connection.
	NewAnswerer() Answerer
}

// Burst is a fixed run of clientbound frames.
type Burst struct {
	Bytes  []byte
	Frames int
}

// Request is the client's half of one round trip; its slices are reused by the next call.
type Request struct {
	Bytes  []byte
	Units  []int // end offsets in Bytes of what a client that does not coalesce writes one at a time
	Frames int
}

// Answerer is the backend side of a profile for one connection.
type Answerer interface {
	// Answer handles one frame from the client (prefix included, and its body) and appends
	// what the backend sends back, if anything, to dst.
	Answer(dst, frame, body []byte) ([]byte, error)
}

// SequenceError is traffic that does not follow the profile: wrong packet, wrong order, a
// sequence number out of step.
type SequenceError struct {
	Profile string
	Detail  string
}

func (e *SequenceError) Error() string { return fmt.Sprintf("traffic %s: %s", e.Profile, e.Detail) }

// ByName returns the profile called name; echo uses payload (frame body bytes) and burst.
func ByName(name string, payload, burst int) (Profile, error) {
	switch name {
	case "echo":
		return NewEcho(payload, burst)
	case "modded":
		return Modded(), nil
	}
	return nil, fmt.Errorf("traffic: unknown profile %q (want echo or modded)", name)
}
