package delaylink

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Device is one end of the link: each Read returns one IP packet, each Write sends one. A TUN
// device's file is one (OpenTUN).
type Device = io.ReadWriteCloser

// queued is the most packets one direction holds at once; a reader that finds the queue full
// waits, and its device's own queue (the kernel's) then drops as a full link would.
const queued = 1 << 14

// Link carries packets between two devices, each direction held for the one-way delay.
type Link struct {
	oneWay atomic.Int64 // nanoseconds
	dirs   [2]*direction
	devs   [2]Device
	wg     sync.WaitGroup
	errMu  sync.Mutex
	err    error // the first pump error that was not the link closing
	closed atomic.Bool
}

// Start carries packets between a and b from now on, each held for oneWay (half the round
// trip). Close stops it and closes both devices.
func Start(a, b Device, oneWay time.Duration) *Link {
	l := &Link{devs: [2]Device{a, b}}
	l.oneWay.Store(int64(oneWay))
	l.dirs[0], l.dirs[1] = newDirection(a, b, l.OneWay), newDirection(b, a, l.OneWay)
	for _, d := range l.dirs {
		l.wg.Add(2)
		go l.pump(d.read)
		go l.pump(d.write)
	}
	return l
}

// SetOneWay changes the delay of packets read from now on. Packets already held keep theirs
// and go first: order is kept even when the delay shrinks.
func (l *Link) SetOneWay(d time.Duration) { l.oneWay.Store(int64(d)) }

// OneWay is the delay packets read now get.
func (l *Link) OneWay() time.Duration { return time.Duration(l.oneWay.Load()) }

// AtoB and BtoA count what each direction has carried so far.
func (l *Link) AtoB() Counters { return l.dirs[0].counters() }
func (l *Link) BtoA() Counters { return l.dirs[1].counters() }

// Close closes both devices, waits for the pumps to stop and returns the first error a pump
// met before that, if any.
func (l *Link) Close() error {
	l.closed.Store(true)
	err := errors.Join(l.devs[0].Close(), l.devs[1].Close())
	for _, d := range l.dirs {
		d.stop()
	}
	l.wg.Wait()
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return errors.Join(l.err, err)
}

// pump runs one half of a direction until the link closes.
func (l *Link) pump(run func() error) {
	defer l.wg.Done()
	err := run()
	if err != nil && !l.closed.Load() {
		l.errMu.Lock()
		l.err = errors.Join(l.err, err)
		l.errMu.Unlock()
	}
}
