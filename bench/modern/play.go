package modern

import (
	"context"
	"time"
)

// EchoTimeout bounds how long Echo waits for its answer.
const EchoTimeout = 10 * time.Second

// eventBuffer is how many events the reader may be ahead of the test.
const eventBuffer = 16

// Transfer is a Transfer the server sent, with the Store Cookies it sent before it.
type Transfer struct {
	Host    string
	Port    uint16
	Cookies map[string][]byte // key -> value, as stored since the join
	State   string            // StateConfiguration or StatePlay
}

// startReader reads the rest of the connection on its own goroutine, so that keep-alives are
// answered while the test waits, and a wait that gives up leaves the stream as it was.
func (c *Client) startReader() {
	c.events = make(chan event, eventBuffer)
	c.closing = make(chan struct{})
	c.done = make(chan struct{})
	go c.readLoop()
}

// readLoop hands on echoes until a transfer or the end, which it hands on last.
func (c *Client) readLoop() {
	defer close(c.done)
	defer close(c.events)
	for {
		ev := c.step()
		if ev.kind == evNone {
			continue
		}
		select {
		case c.events <- ev:
		case <-c.closing:
			return
		}
		if ev.kind != evEcho {
			return // the player leaves after a Transfer or a Disconnect
		}
	}
}

// Echo sends payload on test:echo and waits (EchoTimeout at most) for the answer, which must
// be the same bytes (else an *EchoError). A Transfer that comes first makes it return
// ErrTransferred, a Disconnect a *DisconnectError and the stream's end a *StreamEndError;
// AwaitTransfer returns the same.
func (c *Client) Echo(payload []byte) error {
	if c.last != nil {
		return c.last.asError()
	}
	if err := c.send(StatePlay, PlayPluginMessageUpID, PluginMessageFields(EchoChannel, payload)); err != nil {
		return err
	}
	timer := time.NewTimer(EchoTimeout)
	defer timer.Stop()
	select {
	case ev, ok := <-c.events:
		switch {
		case !ok:
			return c.closed()
		case ev.kind == evEcho:
			return compareEcho(payload, ev.data)
		}
		c.last = &ev
		return ev.asError()
	case <-timer.C:
		return ErrEchoTimeout
	}
}

// AwaitTransfer reads until a Transfer and returns it; a Disconnect instead is a
// *DisconnectError, the stream's end a *StreamEndError. ctx ending returns its error and leaves
// the client as it was. Echo answers that arrive meanwhile are dropped.
func (c *Client) AwaitTransfer(ctx context.Context) (Transfer, error) {
	for c.last == nil {
		select {
		case ev, ok := <-c.events:
			if !ok {
				return Transfer{}, c.closed()
			}
			if ev.kind != evEcho {
				c.last = &ev
			}
		case <-ctx.Done():
			return Transfer{}, ctx.Err()
		}
	}
	if c.last.kind == evTransfer {
		return c.last.transfer, nil
	}
	return Transfer{}, c.last.err
}

// Close ends the connection and waits for the reader.
func (c *Client) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closing)
		err = c.rwc.Close()
	})
	<-c.done
	return err
}

// closed is what reading after Close returns.
func (c *Client) closed() error { return &StreamEndError{State: StatePlay, Err: ErrClosed} }

func (ev *event) asError() error {
	if ev.kind == evTransfer {
		return ErrTransferred
	}
	return ev.err
}

func compareEcho(sent, got []byte) error {
	n := min(len(sent), len(got))
	for i := range n {
		if sent[i] != got[i] {
			return &EchoError{Sent: len(sent), Got: len(got), Offset: i}
		}
	}
	if len(sent) != len(got) {
		return &EchoError{Sent: len(sent), Got: len(got), Offset: n}
	}
	return nil
}
