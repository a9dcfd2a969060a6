package delaylink

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// queued is the most packets one direction holds at once; a packet read while it is full is
// dropped, as a full queue on a real path drops.
const queued = 1 << 14

// Link carries packets between two devices, each direction held for the one-way delay.
type Link struct {
	oneWay   atomic.Int64 // nanoseconds
	dirs     [2]*direction
	stop     func() error // wakes both pumps for good
	wg       sync.WaitGroup
	errs     [2]error
	realtime atomic.Int32 // pumps that run under SCHED_FIFO
	closed   sync.Once
	closeErr error
}

// Start carries packets between the devices a and b (file descriptors of packet devices, such
// as OpenTUN's, or of SOCK_SEQPACKET sockets; the link owns them from now on) with each
// packet held for oneWay, half the round trip. Each direction is one OS thread that sleeps in
// ppoll(2) until a packet comes or the next is due; as root that thread runs under SCHED_FIFO,
// so that the machine's other work does not make packets late (Realtime says whether it
// does). Close stops the link and closes both devices.
func Start(a, b int, oneWay time.Duration) (*Link, error) {
	l := &Link{}
	l.oneWay.Store(int64(oneWay))
	wake, stop, err := newWaker()
	if err != nil {
		return nil, err
	}
	l.stop = stop
	l.dirs[0] = newDirection(a, b, wake, l.OneWay)
	l.dirs[1] = newDirection(b, a, wake, l.OneWay)
	ready := make(chan bool, 2)
	for i, d := range l.dirs {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.errs[i] = d.run(ready)
		}()
	}
	for range l.dirs {
		if <-ready {
			l.realtime.Add(1)
		}
	}
	return l, nil
}

// SetOneWay changes the delay of packets read from now on. Packets already held keep theirs
// and go first: order is kept even when the delay shrinks.
func (l *Link) SetOneWay(d time.Duration) { l.oneWay.Store(int64(d)) }

// OneWay is the delay packets read now get.
func (l *Link) OneWay() time.Duration { return time.Duration(l.oneWay.Load()) }

// Realtime says whether both directions run under SCHED_FIFO (it needs root).
func (l *Link) Realtime() bool { return l.realtime.Load() == int32(len(l.dirs)) }

// AtoB and BtoA count what each direction has carried so far.
func (l *Link) AtoB() Counters { return l.dirs[0].counters() }
func (l *Link) BtoA() Counters { return l.dirs[1].counters() }

// Close stops both directions, closes the devices and returns the first error a direction met
// before, if any.
func (l *Link) Close() error {
	l.closed.Do(func() {
		err := l.stop()
		l.wg.Wait()
		l.closeErr = errors.Join(l.errs[0], l.errs[1], err, l.dirs[0].close())
	})
	return l.closeErr
}
