package delaylink

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// rtPriority is the SCHED_FIFO priority of a pump: above every normal process, low among
// real-time ones. The kernel's real-time throttling (95% of each second by default) bounds
// what a pump could take if it ever spun.
const rtPriority = 10

// readBurst is the most packets a pump reads before it writes those due: a flood in one
// direction does not hold back what is due.
const readBurst = 64

// newWaker is an eventfd both pumps poll; stop makes it readable for good.
func newWaker() (fd int, stop func() error, err error) {
	fd, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return 0, nil, fmt.Errorf("delaylink: eventfd: %w", err)
	}
	return fd, func() error {
		_, err := unix.Write(fd, []byte{1, 0, 0, 0, 0, 0, 0, 0})
		return err
	}, nil
}

// run is the direction's pump: on a thread of its own (never given back: it ends with the
// goroutine), real-time when allowed, it sleeps in ppoll until a packet can be read, the
// first held packet is due, or the link closes. ready gets whether it runs real-time.
func (d *direction) run(ready chan<- bool) error {
	runtime.LockOSThread()
	attr := unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: rtPriority}
	ready <- unix.SchedSetAttr(0, &attr, 0) == nil
	fds := []unix.PollFd{{Fd: int32(d.in), Events: unix.POLLIN}, {Fd: int32(d.wake), Events: unix.POLLIN}}
	for {
		var timeout *unix.Timespec
		if wait, ok := d.next(time.Now()); ok {
			ts := unix.NsecToTimespec(int64(wait))
			timeout = &ts
		}
		if _, err := unix.Ppoll(fds, timeout, nil); err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("delaylink: ppoll: %w", err)
		}
		switch {
		case fds[1].Revents != 0:
			return nil
		case fds[0].Revents&unix.POLLIN != 0:
			if err := d.readSome(); err != nil {
				return err
			}
		case fds[0].Revents != 0: // hung up or failed without data: the device is gone
			return fmt.Errorf("delaylink: device %d: poll events %#x", d.in, fds[0].Revents)
		}
		d.writeDue()
	}
}

// readSome reads what the device has, up to readBurst packets.
func (d *direction) readSome() error {
	for range readBurst {
		n, err := unix.Read(d.in, d.scratch)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("delaylink: read: %w", err)
		case n == 0:
			return fmt.Errorf("delaylink: device %d: end of file", d.in)
		}
		d.hold(d.scratch[:n], time.Now())
	}
	return nil
}

// writeDue writes every held packet that is due, in order; one the far device refuses is
// dropped.
func (d *direction) writeDue() {
	for {
		now := time.Now()
		if wait, ok := d.next(now); !ok || wait > 0 {
			return
		}
		_, err := unix.Write(d.out, d.queue[0].packet)
		for errors.Is(err, unix.EINTR) {
			_, err = unix.Write(d.out, d.queue[0].packet)
		}
		d.release(err == nil, now)
	}
}

// close closes both devices and the waker.
func (d *direction) close() error {
	return errors.Join(unix.Close(d.in), unix.Close(d.out), unix.Close(d.wake))
}
