package handover

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/moonbridge/moonbridge/bench/flood"
)

// pingTimeout bounds one attempt of the connect loop.
const pingTimeout = 5 * time.Second

// pingSource is the connect loop's address, apart from the players'.
var pingSource = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// Connects is what the connect loop saw: each attempt is a new TCP connection and a server-list
// ping that must come back with the sink's answer (not the proxy's fallback).
type Connects struct {
	Attempts   int64  `json:"attempts"`
	OK         int64  `json:"ok"`
	Refused    int64  `json:"refused"` // ECONNREFUSED: nobody listened
	Reset      int64  `json:"reset"`   // reset or closed before the answer
	Failed     int64  `json:"failed"`  // anything else: a timeout, another answer
	FirstError string `json:"first_error,omitempty"`
}

// connectLoop pings target for host every interval, one attempt at a time, until ctx ends; an
// attempt ctx's end cut short is not counted.
func connectLoop(ctx context.Context, every time.Duration, target, host string) Connects {
	var c Connects
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return c
		case <-tick.C:
		}
		err := ping(ctx, target, host)
		if ctx.Err() != nil {
			return c
		}
		c.count(err)
	}
}

// errNotSink is a ping answered by someone other than the sink: the proxy's fallback status.
var errNotSink = errors.New("the status answer is not the sink's")

func ping(ctx context.Context, target, host string) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	status, err := flood.PingStatus(ctx, pingSource, target, host)
	if err == nil && !flood.IsSinkStatus(status) {
		err = errNotSink
	}
	return err
}

// count files one attempt's outcome.
func (c *Connects) count(err error) {
	c.Attempts++
	var n *int64
	switch {
	case err == nil:
		c.OK++
		return
	case errors.Is(err, syscall.ECONNREFUSED):
		n = &c.Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		n = &c.Reset
	default:
		n = &c.Failed
	}
	*n++
	if c.FirstError == "" {
		c.FirstError = err.Error()
	}
}

// connectRun is the connect loop in the background.
type connectRun struct {
	stop context.CancelFunc
	out  atomic.Pointer[Connects]
	done chan struct{}
}

func startConnects(ctx context.Context, every time.Duration, target, host string) *connectRun {
	ctx, stop := context.WithCancel(ctx)
	r := &connectRun{stop: stop, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		c := connectLoop(ctx, every, target, host)
		r.out.Store(&c)
	}()
	return r
}

// finish stops the loop and returns what it saw.
func (r *connectRun) finish() Connects {
	r.stop()
	<-r.done
	return *r.out.Load()
}
