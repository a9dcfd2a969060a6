package loop

import (
	"errors"
	"fmt"
	"strconv"
)

var (
	// ErrUnsupported: this system has no loop; the relay uses its goroutine pumps.
	ErrUnsupported = errors.New("loop: event loops are not supported on this system")
	// ErrClosed: Register after Engine.Close.
	ErrClosed = errors.New("loop: engine closed")
	// ErrShutdown is the close reason of the sessions Engine.Close ended.
	ErrShutdown = errors.New("loop: engine shut down")
	// ErrCloseRequested is the reason of a session ended by Session.Close(nil).
	ErrCloseRequested = errors.New("loop: session closed by its owner")
	// ErrHeldOverflow: a side took none of the replies and pings queued for it while its bytes
	// were held, until the bound (a peer that sends but does not read).
	ErrHeldOverflow = errors.New("held bytes over the bound: the peer does not read")
)

// PanicError is the close reason of a session whose work on its loop panicked: a codec's Open,
// Seal or Tick, a Send's fill, its OnClose. The loop ends that session (its sockets closed,
// OnClose run unless OnClose itself panicked) and goes on with the others.
type PanicError struct {
	Value any    // what panic was given
	Stack []byte // the loop goroutine's stack where it panicked
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("loop: a session's work panicked: %v", e.Value)
}

// Which names a side of a session, as the relay's log line does.
type Which uint8

const (
	Client  Which = iota // the player's side
	Backend              // the Minecraft server's side
)

func (w Which) String() string {
	if w == Client {
		return "client"
	}
	return "backend"
}

// NotMovableError: Session.Take found something of the session in flight on its loop; it runs
// on, and a later Take may succeed.
type NotMovableError struct{ Why string }

func (e *NotMovableError) Error() string { return "loop: the session cannot move now: " + e.Why }

// PendingTooLargeError: a side's Pending bytes do not fit the loop's buffer.
type PendingTooLargeError struct{ Len, Max int }

func (e *PendingTooLargeError) Error() string {
	return "loop: " + strconv.Itoa(e.Len) + " pending bytes, at most " + strconv.Itoa(e.Max)
}

// GrowthError: a Grower codec asks for as much room as the loop's buffer has, or more.
type GrowthError struct{ Growth, BufferSize int }

func (e *GrowthError) Error() string {
	return "loop: a codec's growth of " + strconv.Itoa(e.Growth) + " bytes leaves nothing of a " +
		strconv.Itoa(e.BufferSize) + "-byte buffer to read into"
}
