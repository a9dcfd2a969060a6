package loop

import (
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/moonbridge/moonbridge/internal/pipe"
)

// readable is the interest of a side that is being read.
const readable = unix.EPOLLIN | unix.EPOLLRDHUP

// maxFreeHeld is how many held buffers a loop keeps for reuse; more go back to the GC, so a
// burst of slow readers does not stay resident.
const maxFreeHeld = 8

// loop is one epoll set and the sessions in it. Everything but the command queue is touched by
// its goroutine only.
type loop struct {
	e         *Engine
	epfd, efd int
	buf       []byte // Headroom + BufferSize: every read lands at buf[Headroom:]
	out       []byte // Seal's scratch
	sides     []*side
	free      [][]byte
	wheel     *wheel[*side]
	fire      func(*timer[*side])
	events    []unix.EpollEvent
	ev        unix.EpollEvent // epoll_ctl's argument, kept here so that it does not escape per call
	count     atomic.Int64    // sessions, for Engine.pick
	wakeups   atomic.Uint64
	busy      atomic.Int64  // ns spent working since the balancer last read it
	load      atomic.Uint32 // the balancer's last reading of busy, in thousandths of its period
	// balanced: Pack's balancer reads busy, so the loop keeps it and the sessions' weights;
	// under Spread a wake-up costs no clock read more than it did before placement existed.
	balanced bool
	awake    time.Time // balanced: when the last epoll_wait returned
	period   uint32    // balanced: the balancer's period at that wake-up (session weights, shed)
	// current is the session whose work runs now, for the guard (panic_linux.go); nil while
	// the loop's own work runs.
	current *Session

	mu      sync.Mutex
	queue   []command
	stopped bool
}

// command is work for a loop from another goroutine.
type command struct {
	sess     *Session
	fds      [2]int // adopt: the client's and the backend's descriptors
	adopt    bool
	moved    *move            // a session another loop gave up (shed): attach it
	shed     *shedOrder       // the balancer's: give some sessions to another loop
	take     chan<- takeReply // Session.Take's
	reason   error            // none of the above nor fill nor shutdown: close sess with reason
	fill     func() []byte    // Session.Send's
	shutdown bool
}

func newLoop(e *Engine) (*loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	l := &loop{
		e: e, epfd: epfd, efd: efd, balanced: e.cfg.balanced(),
		buf:    make([]byte, Headroom+e.cfg.BufferSize),
		out:    make([]byte, Headroom+e.cfg.BufferSize+SealSlack),
		wheel:  newWheel[*side](e.cfg.Tick, time.Now()),
		events: make([]unix.EpollEvent, 256),
	}
	l.fire = l.fireTimer
	l.ev = unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &l.ev); err != nil {
		unix.Close(epfd)
		unix.Close(efd)
		return nil, err
	}
	return l, nil
}

// post queues c and wakes the loop; false if the loop has stopped.
func (l *loop) post(c command) bool { return l.postAll([]command{c}) }

// postAll queues cs, in order, with one wake-up; false (nothing queued) if the loop has stopped.
func (l *loop) postAll(cs []command) bool {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return false
	}
	l.queue = append(l.queue, cs...)
	l.mu.Unlock()
	one := [8]byte{1}
	unix.Write(l.efd, one[:]) // EAGAIN only when the counter is full: the loop is awake anyway
	return true
}

func (l *loop) run() {
	defer l.release()
	l.awake = time.Now()
	for {
		if l.balanced {
			l.busy.Add(int64(time.Since(l.awake)))
		}
		n, err := unix.EpollWait(l.epfd, l.events, l.timeout())
		if l.balanced {
			l.awake, l.period = time.Now(), l.e.period.Load()
		}
		l.wakeups.Add(1)
		if err != nil && err != unix.EINTR {
			l.stop(err)
			return
		}
		woken := false
		events := l.events[:max(n, 0)]
		l.each(len(events), func(i int) {
			fd := int(events[i].Fd)
			l.current = nil
			if fd == l.efd {
				woken = true // commands after the batch: an adopted socket may reuse a descriptor number the batch still names
			} else if s := l.sides[fd]; s != nil {
				l.current = s.sess
				l.handle(s, events[i].Events)
			}
		})
		if l.wheel.count > 0 {
			l.wheel.advance(time.Now(), l.fire)
		}
		if woken && l.commands() {
			return
		}
	}
}

// timeout is epoll_wait's: until the wheel's next tick, or none (and no clock read) when no
// timer is armed.
func (l *loop) timeout() int {
	if l.wheel.count == 0 {
		return -1
	}
	d := l.wheel.wait(time.Now())
	return int((d + time.Millisecond - 1) / time.Millisecond)
}

// commands runs the queued commands; true when the loop is to stop.
func (l *loop) commands() (stop bool) {
	var cnt [8]byte
	unix.Read(l.efd, cnt[:])
	l.mu.Lock()
	queue := l.queue
	l.queue = nil
	l.mu.Unlock()
	l.each(len(queue), func(i int) {
		l.current = queue[i].sess
		stop = l.command(queue[i]) || stop
	})
	if stop {
		l.stop(ErrShutdown)
	}
	return stop
}

func (l *loop) command(c command) (stop bool) {
	switch {
	case c.shutdown:
		return true
	case c.adopt:
		l.adopt(c.sess, c.fds)
	case c.moved != nil:
		l.attach(c.moved)
	case c.shed != nil:
		l.shed(c.shed)
	case c.sess.sides.owner.Load() != l: // it moved after the command was posted
		if !c.sess.sides.owner.Load().post(c) && c.take != nil {
			c.take <- takeReply{err: ErrClosed} // its new loop has stopped, and the session with it
		}
	case c.take != nil:
		l.take(c.sess, c.take)
	case c.fill != nil:
		l.fill(c.sess, c.fill)
	case c.sess.sides.client != nil:
		l.finish(c.sess.sides.client, c.reason)
	}
	return false
}

// fill runs a Send of s: what fill returns goes to the client as the backend's stream bytes.
func (l *loop) fill(s *Session, fill func() []byte) {
	c := s.sides.client
	if c == nil || s.closed {
		return
	}
	b := c.peer // the bytes come as if from the backend
	if n := copy(l.buf[Headroom:], fill()); n > 0 {
		l.deliver(b, n)
	}
}

// stop refuses further commands, runs those already queued and ends every session with reason.
func (l *loop) stop(reason error) {
	l.mu.Lock()
	l.stopped = true
	queue := l.queue
	l.queue = nil
	l.mu.Unlock()
	l.each(len(queue), func(i int) {
		l.current = queue[i].sess
		l.command(queue[i])
	})
	l.each(len(l.sides), func(fd int) {
		if s := l.sides[fd]; s != nil && s.which == Client {
			l.current = s.sess
			l.finish(s, reason)
		}
	})
}

func (l *loop) release() {
	unix.Close(l.epfd)
	unix.Close(l.efd)
}

// adopt watches both sockets of a new session and delivers what each side had pending.
func (l *loop) adopt(s *Session, fds [2]int) {
	c := l.newSide(s, Client, fds[0], s.spec.Client.Codec, &s.down)
	b := l.newSide(s, Backend, fds[1], s.spec.Backend.Codec, &s.up)
	c.peer, b.peer = b, c
	s.sides.client = c
	for _, x := range [2]*side{c, b} {
		if err := l.watch(x, readable); err != nil {
			l.fail(x, "register", err)
			return
		}
		if x.ticker != nil {
			l.wheel.add(&x.timer, x.ticker.Period(), time.Now())
		}
	}
	for _, x := range [2]*side{c, b} {
		if p := s.spec.pending(x.which); len(p) > 0 && !s.closed {
			l.deliver(x, copy(l.buf[Headroom:], p))
		}
	}
	s.spec.Client.Pending, s.spec.Backend.Pending = nil, nil
}

func (l *loop) newSide(s *Session, w Which, fd int, codec Codec, handed *atomic.Int64) *side {
	x := &side{fd: fd, which: w, sess: s, codec: codec, handed: handed, readEnd: len(l.buf)}
	if t, ok := codec.(Ticker); ok && t.Period() > 0 {
		x.ticker = t
	}
	if g, ok := codec.(Grower); ok {
		x.readEnd -= g.Growth() // Register checked that some room is left
	}
	x.timer.owner = x
	for len(l.sides) <= fd {
		l.sides = append(l.sides, nil)
	}
	l.sides[fd] = x
	return x
}

func (s *Spec) pending(w Which) []byte {
	if w == Client {
		return s.Client.Pending
	}
	return s.Backend.Pending
}

// watch sets what the loop waits for on x. A socket waited on for nothing leaves the epoll
// set: epoll reports EPOLLHUP and EPOLLERR whatever the interest, and level-triggered it would
// report, on every wait, a shut socket whose reading is paused behind a slow peer.
func (l *loop) watch(x *side, events uint32) error {
	if events == x.events {
		return nil
	}
	op := unix.EPOLL_CTL_MOD
	switch {
	case events == 0:
		op = unix.EPOLL_CTL_DEL
	case x.events == 0:
		op = unix.EPOLL_CTL_ADD
	}
	l.ev = unix.EpollEvent{Events: events, Fd: int32(x.fd)}
	if err := unix.EpollCtl(l.epfd, op, x.fd, &l.ev); err != nil {
		return err
	}
	x.events = events
	return nil
}

// interest is watch for the data path: a failure ends the session.
func (l *loop) interest(x *side, events uint32) {
	if err := l.watch(x, events); err != nil {
		l.fail(x, "epoll", err)
	}
}

// finish ends x's session with reason: its codecs have their last words, both sockets are
// closed, their timers and held buffers released, and OnClose runs. A session that has ended
// already is left alone.
func (l *loop) finish(x *side, reason error) {
	s := x.sess
	if s.closed {
		return
	}
	s.closed = true
	for _, y := range [2]*side{x, x.peer} {
		l.lastWords(y, reason)
	}
	l.closeSockets(s)
	l.report(s, reason)
}

// closeSockets releases what s holds on the loop, once: its timers, held buffers and sockets,
// and its place in the counts.
func (l *loop) closeSockets(s *Session) {
	x := s.sides.client
	if x == nil || s.released {
		return
	}
	s.released = true
	for _, y := range [2]*side{x, x.peer} {
		l.wheel.remove(&y.timer)
		l.drop(y)
		if y.fd >= 0 {
			l.watch(y, 0)
			l.sides[y.fd] = nil
			unix.Close(y.fd)
			y.fd = -1 // a late call on y fails with EBADF instead of touching a reused descriptor
		}
	}
	l.count.Add(-1)
	l.e.sessions.Add(-1)
}

// report runs s's OnClose with reason, once.
func (l *loop) report(s *Session, reason error) {
	if s.reported || s.spec.OnClose == nil {
		return
	}
	s.reported = true
	up, down := s.Bytes()
	s.spec.OnClose(Result{Err: reason, Up: up, Down: down, FirstEnd: s.firstEnd})
}

// lastWords gives y's codec its say (Ender) before y is closed for reason: one write that does
// not wait, forgone when the socket's buffer is full or a partial write is held for y.
func (l *loop) lastWords(y *side, reason error) {
	e, ok := y.codec.(Ender)
	if !ok || reason == nil || y.fd < 0 || y.shutDown || y.held != nil {
		return
	}
	if wire := e.End(reason); len(wire) > 0 {
		writeFD(y.fd, wire)
	}
}

func (l *loop) fail(x *side, op string, err error) {
	l.finish(x, &pipe.SideError{Side: x.which.String(), Op: op, Err: err})
}

// tick runs x's Ticker and re-arms it; for a side that has left, the drain is over (leave).
func (l *loop) tick(x *side) {
	if x.left {
		l.finish(x, nil)
		return
	}
	wire, err := x.ticker.Tick(TickState{Wrote: x.wrote, Heard: x.heard, Reading: x.events&unix.EPOLLIN != 0})
	x.wrote, x.heard = false, false
	if err != nil {
		l.fail(x, "keepalive", err)
		return
	}
	l.wheel.add(&x.timer, x.ticker.Period(), time.Now())
	if len(wire) > 0 {
		l.send(x, wire)
	}
}
