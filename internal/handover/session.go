//go:build linux

package handover

import (
	"fmt"
	"syscall"
	"time"
)

// The moved sessions (Version 2): after Ready, the old process sends each established session
// it can move as one Session message with the session's two sockets attached (SCM_RIGHTS: the
// player's, then the backend's), and waits for the new process's answer, Taken or Refused,
// before it sends the next; closing its end says that no more follow. The body is the
// session's state, whose own format the relay versions and checks: this package carries it.

// SessionFDs is how many descriptors a Session carries.
const SessionFDs = 2

// Moving is a Session as the new process read it: the body (the relay's record) and the
// descriptors, which belong to the reader.
type Moving struct {
	Body []byte
	FDs  [SessionFDs]int
}

// SessionError is a Session the new process cannot take as sent (its descriptors): it answers
// Refused with Reason, and the channel goes on.
type SessionError struct{ Reason string }

func (e *SessionError) Error() string { return "handover: session not taken: " + e.Reason }

// RefusedError is the new process's Refused: the session stays with the old process.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return "the new process refused the session: " + e.Reason }

// SendSession sends one session's state and its sockets. The descriptors stay open here: the
// new process has copies once this returns nil, and the answer (AwaitAnswer) says who keeps
// the session.
func (c *Conn) SendSession(body []byte, fds [SessionFDs]int, deadline time.Time) error {
	return c.send(Message{Version: Version, Kind: Session, Body: body}, syscall.UnixRights(fds[:]...), deadline)
}

// ReceiveSession reads the next session by deadline: io.EOF once the old process has sent the
// last, a *SessionError for a Session whose descriptors are not SessionFDs (they are closed;
// answer it Refused and read on), and Receive's errors, after which the channel is done.
func (c *Conn) ReceiveSession(deadline time.Time) (Moving, error) {
	m, fds, err := c.receive(deadline)
	switch {
	case err != nil:
		return Moving{}, err
	case m.Kind != Session:
		closeAll(fds)
		return Moving{}, fmt.Errorf("%w: %s instead of a session", ErrUnexpected, m.Kind)
	case len(fds) != SessionFDs:
		closeAll(fds)
		return Moving{}, &SessionError{Reason: fmt.Sprintf("%d descriptors sent along, want %d", len(fds), SessionFDs)}
	}
	return Moving{Body: m.Body, FDs: [SessionFDs]int(fds)}, nil
}

// Answer tells the old process whether this one took the session it sent last: Taken for a nil
// refusal, else Refused with refusal's text. Only a session whose Taken went out may run here:
// the old process gives a session up on Taken alone.
func (c *Conn) Answer(refusal error, deadline time.Time) error {
	if refusal == nil {
		return c.Send(Message{Version: Version, Kind: Taken}, deadline)
	}
	return c.Send(Message{Version: Version, Kind: Refused, Body: cut(refusal.Error(), maxReason)}, deadline)
}

// AwaitAnswer reads the new process's answer to the session sent last: nil for Taken, a
// *RefusedError for Refused, and Receive's errors. After io.EOF the new process did not take
// it (it takes only after its Taken went out); after any other error nobody knows.
func (c *Conn) AwaitAnswer(deadline time.Time) error {
	m, err := c.Receive(deadline)
	switch {
	case err != nil:
		return err
	case m.Kind == Taken:
		return nil
	case m.Kind == Refused:
		return &RefusedError{Reason: string(m.Body)}
	}
	return fmt.Errorf("%w: %s instead of taken or refused", ErrUnexpected, m.Kind)
}
