//go:build linux

// Command own is the spike's relay on a loop of our own: epoll through golang.org/x/sys/unix,
// level-triggered, one read per readiness event into the loop's shared buffer, one write
// straight to the other socket; only a partial write leaves bytes with the session, and then
// the source is not read until they are gone.
//
// Level-triggered because a readiness event then costs exactly one read (no read that ends in
// EAGAIN, which edge-triggered needs to know the socket is drained), sessions share the loop
// fairly without read budgets, and pausing a source is one epoll_ctl in the rare partial-write
// case (edge-triggered would need a "readable but paused" flag per side instead). The
// throwaway relay that matched HAProxy (bench/results/2026-11-30-loop-spike.md) was level-triggered too.
package main

import (
	"log"
	"net"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/moonbridge/moonbridge/bench/spike/loop/internal/spike"
)

const (
	bufSize  = 64 << 10
	readable = unix.EPOLLIN | unix.EPOLLRDHUP
)

// side is one socket of a session.
type side struct {
	fd       int
	peer     *side
	events   uint32 // the interest registered for fd
	held     []byte // bytes for fd that a partial write left (a pooled buffer), nil when none
	heldOff  int
	readEOF  bool // fd's remote sent FIN
	shutDown bool // we sent FIN to fd's remote
}

type loop struct {
	epfd, efd int
	buf       []byte
	sides     []*side // by fd
	free      [][]byte

	mu      sync.Mutex
	pending [][2]int
}

func main() {
	cfg := spike.Parse()
	loops := make([]*loop, cfg.Loops)
	for i := range loops {
		loops[i] = newLoop()
		go loops[i].run(cfg.LockThread)
	}
	var next atomic.Uint32
	spike.Serve(cfg, func(player, backend net.Conn) error {
		return loops[int(next.Add(1))%len(loops)].register(player, backend)
	})
}

func newLoop() *loop {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		log.Fatal(err)
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		log.Fatal(err)
	}
	l := &loop{epfd: epfd, efd: efd, buf: make([]byte, bufSize)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}); err != nil {
		log.Fatal(err)
	}
	return l
}

// register takes both sockets away from Go's poller (a close-on-exec dup of each, then the
// net.Conn is closed: the dup keeps the socket open) and queues them for the loop.
func (l *loop) register(player, backend net.Conn) error {
	pfd, err := detach(player)
	if err != nil {
		backend.Close()
		return err
	}
	bfd, err := detach(backend)
	if err != nil {
		unix.Close(pfd)
		return err
	}
	l.mu.Lock()
	l.pending = append(l.pending, [2]int{pfd, bfd})
	l.mu.Unlock()
	one := [8]byte{1}
	_, err = unix.Write(l.efd, one[:])
	return err
}

func detach(c net.Conn) (int, error) {
	defer c.Close()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, derr
	}
	return fd, unix.SetNonblock(fd, true)
}

func (l *loop) run(lock bool) {
	if lock {
		runtime.LockOSThread()
	}
	events := make([]unix.EpollEvent, 128)
	for {
		n, err := unix.EpollWait(l.epfd, events, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			log.Fatal(err)
		}
		for i := range events[:n] {
			fd := int(events[i].Fd)
			if fd == l.efd {
				l.adopt()
			} else if s := l.sides[fd]; s != nil { // nil: closed earlier in this batch
				l.handle(s, events[i].Events)
			}
		}
	}
}

// adopt registers the queued sessions.
func (l *loop) adopt() {
	var cnt [8]byte
	unix.Read(l.efd, cnt[:])
	l.mu.Lock()
	queued := l.pending
	l.pending = nil
	l.mu.Unlock()
	for _, fds := range queued {
		a, b := &side{fd: fds[0]}, &side{fd: fds[1]}
		a.peer, b.peer = b, a
		for _, s := range []*side{a, b} {
			for len(l.sides) <= s.fd {
				l.sides = append(l.sides, nil)
			}
			l.sides[s.fd] = s
			s.events = readable
			if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, s.fd, &unix.EpollEvent{Events: readable, Fd: int32(s.fd)}); err != nil {
				l.closeSession(a)
				break
			}
		}
	}
}

func (l *loop) handle(s *side, ev uint32) {
	if ev&unix.EPOLLERR != 0 {
		l.closeSession(s) // reset or error: SO_ERROR would say which
		return
	}
	if ev&unix.EPOLLOUT != 0 {
		if l.flush(s); l.sides[s.fd] != s {
			return
		}
	}
	switch {
	case ev&readable != 0 && s.events&unix.EPOLLIN != 0:
		l.forward(s, ev&unix.EPOLLRDHUP != 0)
	case ev&unix.EPOLLHUP != 0:
		l.closeSession(s) // s is shut both ways, yet still watched for writing: nothing can arrive
	}
}

// forward reads src once and writes what came to its peer. rdhup says src's remote has sent
// FIN: a read shorter than the buffer then emptied the socket, so the EOF is handled now
// instead of costing another wake-up and read.
func (l *loop) forward(src *side, rdhup bool) {
	n, err := read(src.fd, l.buf)
	switch {
	case err == unix.EAGAIN:
		return
	case err != nil:
		l.closeSession(src)
		return
	case n == 0:
		l.endOfInput(src)
		return
	}
	dst := src.peer
	w, err := write(dst.fd, l.buf[:n])
	if err != nil {
		l.closeSession(src)
		return
	}
	if w < n {
		l.hold(src, dst, l.buf[w:n])
		return
	}
	if rdhup && n < len(l.buf) {
		l.endOfInput(src)
	}
}

// hold keeps what dst did not take and stops reading src until dst has taken it.
func (l *loop) hold(src, dst *side, rest []byte) {
	if len(l.free) > 0 {
		dst.held = l.free[len(l.free)-1]
		l.free = l.free[:len(l.free)-1]
	} else {
		dst.held = make([]byte, bufSize)
	}
	dst.held = dst.held[:copy(dst.held[:cap(dst.held)], rest)]
	dst.heldOff = 0
	l.interest(src, 0)
	l.interest(dst, dst.events|unix.EPOLLOUT)
}

// flush writes dst's held bytes; when they are gone it reads the source again (or passes on
// the FIN the source sent meanwhile).
func (l *loop) flush(dst *side) {
	w, err := write(dst.fd, dst.held[dst.heldOff:])
	if err != nil {
		l.closeSession(dst)
		return
	}
	if dst.heldOff += w; dst.heldOff < len(dst.held) {
		return
	}
	l.free = append(l.free, dst.held)
	dst.held = nil
	l.interest(dst, dst.events&^unix.EPOLLOUT)
	src := dst.peer
	if src.readEOF {
		l.shutWrite(dst)
	} else {
		l.interest(src, readable)
	}
}

// endOfInput: src's remote sent FIN. Stop reading src and pass the FIN on once dst has every
// byte; the session ends when both directions have ended.
func (l *loop) endOfInput(src *side) {
	src.readEOF = true
	l.interest(src, src.events&^readable)
	if dst := src.peer; dst.held == nil {
		l.shutWrite(dst)
	}
}

func (l *loop) shutWrite(s *side) {
	unix.Shutdown(s.fd, unix.SHUT_WR)
	s.shutDown = true
	if s.peer.shutDown {
		l.closeSession(s)
	}
}

// interest sets what the loop waits for on s. A socket waited on for nothing leaves the epoll
// set: epoll reports EPOLLHUP and EPOLLERR whatever the interest, and level-triggered it would
// report a fully shut socket whose source is paused on every wait.
func (l *loop) interest(s *side, events uint32) {
	if events == s.events {
		return
	}
	op := unix.EPOLL_CTL_MOD
	switch {
	case events == 0:
		op = unix.EPOLL_CTL_DEL
	case s.events == 0:
		op = unix.EPOLL_CTL_ADD
	}
	s.events = events
	if err := unix.EpollCtl(l.epfd, op, s.fd, &unix.EpollEvent{Events: events, Fd: int32(s.fd)}); err != nil {
		l.closeSession(s)
	}
}

// closeSession closes both sockets; closing the only descriptor of a socket also takes it out
// of the epoll set.
func (l *loop) closeSession(s *side) {
	for _, x := range []*side{s, s.peer} {
		if l.sides[x.fd] != x {
			continue
		}
		if x.held != nil {
			l.free = append(l.free, x.held)
			x.held = nil
		}
		l.sides[x.fd] = nil
		unix.Close(x.fd)
	}
}

// read reads once (EINTR retried).
func read(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			return max(n, 0), err
		}
	}
}

// write writes once (EINTR retried); EAGAIN is a write of 0 bytes.
func write(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Write(fd, b)
		switch err {
		case nil:
			return n, nil
		case unix.EAGAIN:
			return 0, nil
		case unix.EINTR:
			continue
		}
		return 0, err
	}
}
