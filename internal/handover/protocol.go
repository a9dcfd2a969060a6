//go:build linux

package handover

import (
	"fmt"
	"strings"
	"time"
)

// Peer is what the other side's Hello said.
type Peer struct {
	Version uint16
	Build   string // its build version, for the log
}

// SameFormat says whether kinds beyond the base may follow: only between equal versions. With
// another version the handover is the listeners alone.
func (p Peer) SameFormat() bool { return p.Version == Version }

// Greet sends this side's Hello (build cut to its bound) and reads the other's, by deadline.
func (c *Conn) Greet(build string, deadline time.Time) (Peer, error) {
	if err := c.Send(Message{Version: Version, Kind: Hello, Body: cut(build, maxBuild)}, deadline); err != nil {
		return Peer{}, err
	}
	m, err := c.Receive(deadline)
	if err != nil {
		return Peer{}, err
	}
	if m.Kind != Hello {
		return Peer{}, fmt.Errorf("%w: %s before hello", ErrUnexpected, m.Kind)
	}
	return Peer{Version: m.Version, Build: string(m.Body)}, nil
}

// StartError is the reason a child sent in its Failed message.
type StartError struct{ Reason string }

func (e *StartError) Error() string { return "the new process failed its start-up: " + e.Reason }

// AwaitReady reads the child's answer after the greeting: nil for Ready, a *StartError for
// Failed, and Receive's errors (io.EOF: the child ended without a word).
func (c *Conn) AwaitReady(deadline time.Time) error {
	m, err := c.Receive(deadline)
	switch {
	case err != nil:
		return err
	case m.Kind == Ready:
		return nil
	case m.Kind == Failed:
		return &StartError{Reason: string(m.Body)}
	}
	return fmt.Errorf("%w: %s instead of ready or failed", ErrUnexpected, m.Kind)
}

// SendReady tells the parent that this process serves on every listener handed over.
func (c *Conn) SendReady(deadline time.Time) error {
	return c.Send(Message{Version: Version, Kind: Ready}, deadline)
}

// SendFailed tells the parent why this process's start-up failed; a reason over the bound is
// cut at a character boundary.
func (c *Conn) SendFailed(reason string, deadline time.Time) error {
	return c.Send(Message{Version: Version, Kind: Failed, Body: cut(reason, maxReason)}, deadline)
}

// cut bounds s to n bytes, at a character boundary.
func cut(s string, n int) []byte {
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "")
	}
	return []byte(s)
}
