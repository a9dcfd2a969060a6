package login

import (
	"bytes"
	"fmt"

	"github.com/moonbridge/moonbridge/mc"
)

// Error says which step of the offline login the backend refused and why.
type Error struct {
	Step string // "handshake", "login start", "position confirm"
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("login: %s: %v", e.Step, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

// ReadRequest reads a client's handshake and Login Start and returns the player's name.
func ReadRequest(r *mc.FrameReader) (name string, err error) {
	frame, _, err := r.ReadFrame()
	if err != nil {
		return "", &Error{"handshake", err}
	}
	return ReadRequestAfter(frame, r)
}

// ReadRequestAfter is ReadRequest for a handshake frame the caller read already (to look at
// its protocol number first).
func ReadRequestAfter(handshake []byte, r *mc.FrameReader) (name string, err error) {
	hs, _, err := mc.ParseHandshake(handshake, 0)
	switch {
	case err != nil:
		return "", &Error{"handshake", err}
	case hs.NextState != mc.NextLogin:
		return "", &Error{"handshake", fmt.Errorf("next state %v, want login", hs.NextState)}
	}
	_, body, err := r.ReadFrame()
	if err != nil {
		return "", &Error{"login start", err}
	}
	return parseLoginStart(body)
}

func parseLoginStart(body []byte) (string, error) {
	id, fields, err := mc.PacketID(body)
	if err == nil && id != idLoginStart {
		err = fmt.Errorf("packet id %#x, want %#x", id, idLoginStart)
	}
	if err != nil {
		return "", &Error{"login start", err}
	}
	size, n, err := mc.ReadVarInt(fields)
	if err == nil && (size < 1 || size > maxNameBytes || int(size) != len(fields)-n) {
		err = fmt.Errorf("name of %d bytes in a %d-byte packet", size, len(fields))
	}
	if err != nil {
		return "", &Error{"login start", err}
	}
	return string(fields[n:]), nil
}

// ReadPositionConfirm reads the client's C06 and checks it is the expected one.
func ReadPositionConfirm(r *mc.FrameReader) error {
	frame, _, err := r.ReadFrame()
	if err == nil && !bytes.Equal(frame, AppendPositionConfirm(nil)) {
		err = fmt.Errorf("unexpected frame % x", frame[:min(len(frame), 16)])
	}
	if err != nil {
		return &Error{"position confirm", err}
	}
	return nil
}
