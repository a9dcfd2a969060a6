package loop

import (
	"errors"
	"io"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// errHangup: epoll reported a socket shut both ways while the loop had nothing to read from or
// write to it.
var errHangup = errors.New("hang-up")

// side is one socket of a session, in its loop.
type side struct {
	fd      int
	which   Which
	sess    *Session
	peer    *side
	codec   Codec
	readEnd int           // reads from fd land at buf[Headroom:readEnd]: a Grower's room is behind
	ticker  Ticker        // codec's, or nil
	handed  *atomic.Int64 // stream bytes handed to this socket (the session's up or down)
	events  uint32        // what the loop waits for on fd
	timer   timer[*side]

	held    []byte // wire bytes for fd that a partial write left (a pooled buffer); nil: none
	heldOff int

	readEOF  bool // the stream from fd has ended (FIN, or the codec said so)
	shutDown bool // the stream to fd has ended: shutdown(SHUT_WR) done
	left     bool // fd's peer has gone after its stream ended: nothing more is written to it (leave)
	wrote    bool // since the last tick
	heard    bool // since the last tick
}

// handle acts on one epoll event of x.
func (l *loop) handle(x *side, ev uint32) {
	if l.balanced {
		l.weigh(x)
	}
	if ev&unix.EPOLLERR != 0 {
		l.lost(x, "socket", socketError(x.fd))
		return
	}
	if ev&unix.EPOLLOUT != 0 && x.held != nil {
		if l.flush(x); x.sess.closed {
			return
		}
	}
	switch {
	case ev&readable != 0 && x.events&unix.EPOLLIN != 0:
		l.forward(x, ev&unix.EPOLLRDHUP != 0)
	case ev&unix.EPOLLHUP != 0 && x.held == nil:
		l.lost(x, "socket", errHangup)
	}
}

// forward reads src once into the shared buffer and hands what it carried to the peer. rdhup:
// src's remote has sent FIN, so a read shorter than the buffer emptied the socket and the end
// of input is handled now instead of costing another wake-up and read.
func (l *loop) forward(src *side, rdhup bool) {
	in := l.buf[Headroom:src.readEnd] // cap(in) is still BufferSize: a Grower's Open may use it
	n, err := readFD(src.fd, in)
	switch {
	case err == unix.EAGAIN:
		return
	case err != nil:
		l.fail(src, "read", err)
		return
	case n == 0:
		l.endOfInput(src)
		return
	}
	src.heard = true
	m, reply, err := src.codec.Open(in[:n])
	if err == io.EOF {
		src.readEOF = true // a reply that finds src gone (it closed after its close) is no error
	}
	if len(reply) > 0 && !l.send(src, reply) {
		return
	}
	if m > 0 && !l.deliver(src, m) {
		return
	}
	switch {
	case err == io.EOF:
		l.endOfInput(src)
	case err != nil:
		l.fail(src, "open", err)
	case rdhup && n < len(in):
		l.endOfInput(src)
	}
}

// deliver seals the m stream bytes at buf[Headroom:] for src's peer and writes them; false if
// the session ended.
func (l *loop) deliver(src *side, m int) bool {
	dst := src.peer
	if dst.left {
		return true // dropped: dst's peer has gone, src is being drained
	}
	wire, err := dst.codec.Seal(l.buf[:Headroom+m], Headroom, l.out)
	if err != nil {
		l.lost(dst, "seal", err)
		return !dst.sess.closed
	}
	dst.handed.Add(int64(m))
	return l.send(dst, wire)
}

// send writes wire to dst once, after what dst still holds; a partial write holds the rest.
// false if the session ended.
func (l *loop) send(dst *side, wire []byte) bool {
	switch {
	case dst.shutDown:
		return true // a reply or ping after the stream to dst ended has no one to go to
	case dst.held != nil:
		return l.appendHeld(dst, wire)
	}
	dst.wrote = true
	w, err := writeFD(dst.fd, wire)
	if err != nil {
		l.lost(dst, "write", err)
		return !dst.sess.closed
	}
	if w < len(wire) {
		l.hold(dst, wire[w:])
	}
	return !dst.sess.closed
}

// hold keeps what dst did not take, waits until dst is writable, and stops reading its source
// meanwhile: at most one batch is held per direction.
func (l *loop) hold(dst *side, rest []byte) {
	if n := len(l.free); n > 0 {
		dst.held = l.free[n-1][:0]
		l.free = l.free[:n-1]
	} else {
		dst.held = make([]byte, 0, len(l.out))
	}
	l.e.held.Add(1)
	dst.held = append(dst.held, rest...)
	dst.heldOff = 0
	l.interest(dst.peer, dst.peer.events&^readable)
	l.interest(dst, dst.events|unix.EPOLLOUT)
}

// appendHeld appends a reply or ping behind what dst holds, up to a bound (replies are small; a
// peer that never reads them must not grow the buffer).
func (l *loop) appendHeld(dst *side, wire []byte) bool {
	if len(dst.held)+len(wire) > 2*len(l.out) {
		l.fail(dst, "write", ErrHeldOverflow)
		return false
	}
	dst.held = append(dst.held, wire...)
	return true
}

// flush writes what dst holds; when it is all gone, dst's source is read again, or the end of
// its stream, which came meanwhile, is passed on.
func (l *loop) flush(dst *side) {
	dst.wrote = true
	w, err := writeFD(dst.fd, dst.held[dst.heldOff:])
	if err != nil {
		l.lost(dst, "write", err)
		return
	}
	if dst.heldOff += w; dst.heldOff < len(dst.held) {
		return
	}
	l.drop(dst)
	l.interest(dst, dst.events&^unix.EPOLLOUT)
	switch src := dst.peer; {
	case dst.sess.closed:
	case dst.left:
		l.leftWritten(dst)
	case src.readEOF:
		l.shutWrite(dst)
	default:
		l.interest(src, src.events|readable)
	}
}

// drop gives x's held buffer back.
func (l *loop) drop(x *side) {
	if x.held == nil {
		return
	}
	if len(l.free) < maxFreeHeld {
		l.free = append(l.free, x.held)
	}
	x.held, x.heldOff = nil, 0
	l.e.held.Add(-1)
}

// endOfInput: the stream from src has ended. src is not read any more, and the end is passed
// on to the peer (its codec's closing bytes, then a FIN) once every byte before it was written.
// A side whose codec has no half-close (a WebSocket that sent its close) takes nothing more after
// its end: it has left.
func (l *loop) endOfInput(src *side) {
	src.readEOF = true
	if s := src.sess; !s.anyEnd {
		s.firstEnd, s.anyEnd = src.which, true
	}
	l.interest(src, src.events&^readable)
	dst := src.peer
	if dst.left { // the drain is over: dst's peer went first, and now src's stream has ended too
		if dst.held == nil {
			l.finish(src, nil)
		}
		return
	}
	if tail := dst.codec.CloseWrite(); len(tail) > 0 && !l.send(dst, tail) {
		return
	}
	if dst.held == nil && !dst.sess.closed {
		l.shutWrite(dst)
	}
	if _, oneWay := src.codec.(NoHalfClose); oneWay && !src.sess.closed {
		l.leave(src)
	}
}

// shutWrite ends the stream to x; with the other direction ended too, or when x's codec has
// no half-close, the session is over.
func (l *loop) shutWrite(x *side) {
	x.shutDown = true
	l.wheel.remove(&x.timer) // nothing more is written to x: no pings
	if err := unix.Shutdown(x.fd, unix.SHUT_WR); err != nil && err != unix.ENOTCONN {
		l.fail(x, "shutdown", err)
		return
	}
	// A peer side that has left is done when x's own stream ends (the drain, leave).
	if _, oneWay := x.codec.(NoHalfClose); oneWay || x.peer.shutDown && !x.peer.left {
		l.finish(x, nil)
	}
}

// lost handles a failed write to x (its codec's Seal, the socket's write, an error or hang-up
// epoll reported). After x's own stream ended cleanly (a FIN, a WebSocket close) it is x's peer
// having gone, which is no error: what was held for x is dropped and x has left. Before, the
// session ends with the error. EPIPE before the loop read x's end is x reset after a FIN that
// still waits unread (a game that sends FIN, then closes with bytes unread; Linux says
// ECONNRESET where no FIN came first): x's stream has ended all the same, and the end is passed
// on. What x sent before that FIN and the loop had not read goes with x's socket.
func (l *loop) lost(x *side, op string, err error) {
	if !x.readEOF && err == unix.EPIPE {
		l.endOfInput(x)
	}
	if !x.readEOF || x.sess.closed {
		l.fail(x, op, err)
		return
	}
	l.drop(x)
	l.interest(x, 0)
	x.shutDown = true // the socket takes nothing more: no closing bytes, no FIN
	l.leave(x)
}

// leave: x's stream has ended and x takes nothing more. What is still held for x (a close
// answer) is written, then x is shut for writing; what x's peer side still sends is read and
// dropped until its stream ends too, or for at most Config.Drain (x's timer, its pings being
// over), and the session ends cleanly. So the peer side's socket is closed with nothing unread
// in it, which is a FIN and not a reset.
func (l *loop) leave(x *side) {
	if x.left {
		l.leftWritten(x)
		return
	}
	x.left = true
	l.wheel.add(&x.timer, l.e.cfg.Drain, time.Now()) // also bounds the writing of what is held
	if src := x.peer; !src.readEOF {
		l.interest(src, src.events|readable) // if it waited for x to take what was held
	}
	if x.held == nil && !x.sess.closed {
		l.leftWritten(x)
	}
}

// leftWritten: everything for x, which has left, is written. x gets its codec's closing bytes
// (a WebSocket's close went out already; under it TLS's close_notify), in one write that does
// not wait, and is shut for writing; the session is over if x's peer side has ended too.
func (l *loop) leftWritten(x *side) {
	if !x.shutDown {
		x.shutDown = true
		if tail := x.codec.CloseWrite(); len(tail) > 0 {
			writeFD(x.fd, tail)
		}
		unix.Shutdown(x.fd, unix.SHUT_WR) // an error: x is gone already, which is what it says
	}
	if x.peer.readEOF {
		l.finish(x, nil)
	}
}
