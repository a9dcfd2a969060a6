package flood

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// runEpoll runs the flood on cfg.EpollThreads locked threads: thread w starts connections w,
// w+threads, ... on the pacer's schedule (connection i due at i/Rate), each with at most
// MaxOpen/threads open.
func runEpoll(ctx context.Context, cfg *Config) (Result, error) {
	target, err := sockaddr4(cfg.Target)
	if err != nil {
		return Result{}, err
	}
	c := newCanned(cfg)
	var t tally
	n := cfg.EpollThreads
	done := make([]epollDone, n)
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := range n {
		to := *target // each thread its own: connect writes into it
		wg.Go(func() {
			ew := &epollWorker{cfg: cfg, canned: c, target: &to, tally: &t, first: uint64(w), stride: uint64(n),
				maxOpen: max(cfg.MaxOpen/n, 1), conns: map[int]*econn{}}
			done[w] = ew.run(ctx, t0)
		})
	}
	wg.Wait()
	res := t.result()
	var windowCPU time.Duration
	for _, d := range done {
		if d.err != nil {
			return res, d.err
		}
		res.Started += d.started
		res.WindowS = max(res.WindowS, d.window.Seconds())
		windowCPU += d.windowCPU
		res.FloodCPUS += d.cpu.Seconds()
	}
	if res.WindowS > 0 {
		res.AchievedRate = float64(res.Started) / res.WindowS
		res.FloodCores = windowCPU.Seconds() / res.WindowS
	}
	res.Sources = cfg.Sources.Distinct(res.Started)
	return res, ctx.Err()
}

// sockaddr4 is an IPv4 host:port as the socket calls take it.
func sockaddr4(hostport string) (*unix.SockaddrInet4, error) {
	ap, err := netip.ParseAddrPort(hostport)
	if err != nil || !ap.Addr().Is4() {
		return nil, fmt.Errorf("flood: the epoll engine needs an IPv4 address:port, not %q", hostport)
	}
	return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}, nil
}

// epollDone is what one thread did.
type epollDone struct {
	started   uint64
	window    time.Duration // from t0 to the thread's last start, at most the duration
	windowCPU time.Duration // the thread's CPU in the window
	cpu       time.Duration // the thread's CPU until its last connection ended
	err       error
}

// econn is one connection of the epoll engine.
type econn struct {
	id    uint64
	state econnState
	first []byte
	head  headScan // ws: the upgrade answer's head
}

type econnState int

const (
	connecting econnState = iota
	upgrading             // ws: the upgrade sent, its answer's head not read yet
	waiting               // the class's bytes sent: for the answer or the close
)

// holdEntry is when a connection's hold ends; id tells a reused descriptor from the original.
type holdEntry struct {
	at time.Time
	fd int
	id uint64
}

// epollWorker is one thread of the epoll engine.
type epollWorker struct {
	cfg           *Config
	canned        *canned
	target        unix.Sockaddr
	tally         *tally
	first, stride uint64
	maxOpen       int
	ep            int
	conns         map[int]*econn
	holds         []holdEntry // in start order, so in deadline order
	seq           uint64
	buf           [4096]byte
}

// epollWaitMax bounds one wait: the schedule is looked at least this often.
const epollWaitMax = 10 * time.Millisecond

// run starts this thread's connections until the duration is over, then handles them until
// every one has ended; ctx ending ends them all as held.
func (w *epollWorker) run(ctx context.Context, t0 time.Time) epollDone {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU()
	var d epollDone
	if w.ep, d.err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); d.err != nil {
		return d
	}
	defer unix.Close(w.ep)
	end := t0.Add(w.cfg.Duration)
	events := make([]unix.EpollEvent, 256)
	next, starting := w.first, true
	for {
		now := time.Now()
		for starting && len(w.conns) < w.maxOpen && ctx.Err() == nil {
			due := w.due(t0, next, now)
			if !due.Before(end) {
				starting = false
				d.endWindow(now, t0, w.cfg.Duration, cpu0)
				break
			}
			if due.After(now) {
				break
			}
			w.start(next, now)
			next += w.stride
			d.started++
		}
		if ctx.Err() != nil {
			if starting {
				starting = false
				d.endWindow(now, t0, w.cfg.Duration, cpu0)
			}
			w.expire(now.Add(w.cfg.Hold))
		}
		w.expire(now)
		if !starting && len(w.conns) == 0 {
			break
		}
		n, err := unix.EpollWait(w.ep, events, w.waitMs(t0, next, now, starting))
		if err != nil && !errors.Is(err, unix.EINTR) {
			d.err = fmt.Errorf("flood: epoll_wait: %w", err)
			break
		}
		for _, ev := range events[:max(n, 0)] {
			w.handle(int(ev.Fd), ev.Events)
		}
	}
	w.expire(time.Now().Add(w.cfg.Hold)) // after an error: nothing stays open
	d.cpu = threadCPU() - cpu0
	return d
}

// endWindow notes the window's length and the thread's CPU in it when the last start is done.
func (d *epollDone) endWindow(now, t0 time.Time, duration, cpu0 time.Duration) {
	d.window, d.windowCPU = min(now.Sub(t0), duration), threadCPU()-cpu0
}

// due is when connection i starts: at i/Rate from t0, or now when the rate is 0 (as fast as
// the open connections allow).
func (w *epollWorker) due(t0 time.Time, i uint64, now time.Time) time.Time {
	if w.cfg.Rate <= 0 {
		return now
	}
	return t0.Add(time.Duration(float64(i) / w.cfg.Rate * float64(time.Second)))
}

// waitMs is how long epoll_wait may sleep: until the next start or hold's end, at most
// epollWaitMax, rounded up to a millisecond (epoll's unit).
func (w *epollWorker) waitMs(t0 time.Time, next uint64, now time.Time, starting bool) int {
	wake := now.Add(epollWaitMax)
	if starting && len(w.conns) < w.maxOpen {
		wake = minTime(wake, w.due(t0, next, now))
	}
	if len(w.holds) > 0 {
		wake = minTime(wake, w.holds[0].at)
	}
	if !wake.After(now) {
		return 0
	}
	return int((wake.Sub(now) + time.Millisecond - 1) / time.Millisecond)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// start opens connection i from its source address: a non-blocking connect, watched for the
// moment it is writable.
func (w *epollWorker) start(i uint64, now time.Time) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		w.tally.add(outConnectFailed, fmt.Errorf("socket: %w", err))
		return
	}
	if err := w.connect(fd, w.cfg.Sources.Addr(i)); err != nil {
		unix.Close(fd)
		w.tally.add(outConnectFailed, err)
		return
	}
	w.seq++
	w.conns[fd] = &econn{id: w.seq, first: w.canned.first[i%uint64(len(w.canned.first))]}
	w.holds = append(w.holds, holdEntry{at: now.Add(w.cfg.Hold), fd: fd, id: w.seq})
}

// connect binds fd to src (the port picked at connect, per destination) and starts the connect.
func (w *epollWorker) connect(fd int, src netip.Addr) error {
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1); err != nil {
		return fmt.Errorf("IP_BIND_ADDRESS_NO_PORT: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: src.As4()}); err != nil {
		return fmt.Errorf("bind %v: %w", src, err)
	}
	if err := unix.Connect(fd, w.target); err != nil && !errors.Is(err, unix.EINPROGRESS) {
		return fmt.Errorf("connect from %v: %w", src, err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLOUT, Fd: int32(fd)}
	if err := unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	return nil
}

// handle moves a connection on after an event.
func (w *epollWorker) handle(fd int, events uint32) {
	c := w.conns[fd]
	if c == nil {
		return
	}
	if c.state == connecting {
		w.connected(fd, c, events)
		return
	}
	w.read(fd, c)
}

// connected sends the first bytes once the connect is done (or ends a failed connect).
func (w *epollWorker) connected(fd int, c *econn, events uint32) {
	if soerr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || soerr != 0 || events&unix.EPOLLERR != 0 {
		w.end(fd, outConnectFailed, fmt.Errorf("connect: %w", unix.Errno(soerr)))
		return
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)}
	if err := unix.EpollCtl(w.ep, unix.EPOLL_CTL_MOD, fd, &ev); err != nil {
		w.end(fd, outOther, fmt.Errorf("epoll_ctl: %w", err))
		return
	}
	c.state = waiting
	first := c.first
	if w.canned.upgrade != nil {
		c.state, first = upgrading, w.canned.upgrade
	}
	w.send(fd, first)
}

// send writes b whole (a first write of at most a few kB goes into an empty socket buffer).
func (w *epollWorker) send(fd int, b []byte) {
	if len(b) == 0 {
		return
	}
	if n, err := unix.Write(fd, b); err != nil || n != len(b) {
		w.end(fd, writeOutcome(err), fmt.Errorf("write: %d of %d bytes: %v", n, len(b), err))
	}
}

// writeOutcome classifies a failed first write as the go engine does.
func writeOutcome(err error) outcome {
	if isReset(err) {
		return outClosedByProxy
	}
	return outOther
}

// read takes what the proxy sent: the upgrade's answer, the answer the class waits for, or the
// end of the connection.
func (w *epollWorker) read(fd int, c *econn) {
	for {
		n, err := unix.Read(fd, w.buf[:])
		switch {
		case errors.Is(err, unix.EAGAIN):
			return
		case err != nil && !isReset(err):
			w.end(fd, outOther, fmt.Errorf("read: %w", err))
			return
		case n <= 0: // the proxy closed or reset
			w.end(fd, w.closedOutcome(c), nil)
			return
		}
		if w.took(fd, c, w.buf[:n]) {
			return
		}
	}
}

// closedOutcome is a close before the class was done: during the upgrade, a refused upgrade.
func (w *epollWorker) closedOutcome(c *econn) outcome {
	if c.state == upgrading {
		return outConnectFailed
	}
	return outClosedByProxy
}

// took handles bytes b the proxy sent; true when the connection ended.
func (w *epollWorker) took(fd int, c *econn, b []byte) bool {
	if c.state == upgrading {
		rest, done, ok := c.head.scan(b)
		switch {
		case !ok:
			w.end(fd, outConnectFailed, errUpgradeRefused)
			return true
		case !done:
			return false
		}
		c.state = waiting
		w.send(fd, c.first)
		if w.conns[fd] != c {
			return true
		}
		b = rest
	}
	if len(b) > 0 && w.canned.answer {
		w.end(fd, outAnswered, nil)
		return true
	}
	return false
}

// end closes fd and counts its outcome.
func (w *epollWorker) end(fd int, o outcome, err error) {
	unix.Close(fd) // also leaves the epoll set
	delete(w.conns, fd)
	w.tally.add(o, err)
}

// expire ends the connections whose hold ended by now: held, or a connect that never completed.
func (w *epollWorker) expire(now time.Time) {
	for len(w.holds) > 0 && !w.holds[0].at.After(now) {
		h := w.holds[0]
		w.holds = w.holds[1:]
		if c := w.conns[h.fd]; c != nil && c.id == h.id {
			o := outHeld
			if c.state == connecting {
				o = outConnectFailed
			}
			w.end(h.fd, o, nil)
		}
	}
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
