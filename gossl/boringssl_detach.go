//go:build boringssl && cgo

package gossl

import (
	"io"
	"net"

	"github.com/moonbridge/moonbridge/internal/boring"
)

// DetachBoring takes an established BoringSSL server connection off its goroutine for an event
// loop: it returns the raw socket, the plaintext that had arrived but was not read yet (the
// loop's Side.Pending for this side), and the session as a LoopCodec. Ciphertext that had
// arrived is opened here; a record not complete yet stays in the engine, and the codec's first
// Open completes it. c is spent afterwards: its Read and Write fail with ErrDetached and its
// Close does nothing, the caller owns raw and must Free the codec.
//
// Call it between reads and writes (after the HTTP upgrade, say): with one in flight it fails
// with ErrConnBusy. A crypto/tls connection fails with ErrNotBoring. On an error c is still the
// caller's to close.
func DetachBoring(c net.Conn) (raw net.Conn, plaintext []byte, codec LoopCodec, err error) {
	bc, ok := c.(*boringConn)
	if !ok {
		return nil, nil, nil, ErrNotBoring
	}
	plaintext, err = bc.detach()
	if err != nil {
		return nil, nil, nil, err
	}
	return bc.raw, plaintext, newBoringLoopCodec(bc.eng), nil
}

// detach opens what the read buffer holds and hands the engine over; see DetachBoring.
func (c *boringConn) detach() ([]byte, error) {
	if !c.hsMu.TryLock() {
		return nil, ErrConnBusy
	}
	defer c.hsMu.Unlock()
	if !c.rmu.TryLock() {
		return nil, ErrConnBusy
	}
	defer c.rmu.Unlock()
	if !c.wmu.TryLock() {
		return nil, ErrConnBusy
	}
	defer c.wmu.Unlock()
	switch {
	case !c.hsDone:
		return nil, &TLSError{Op: "detach", Reason: "the handshake has not run"}
	case c.hsErr != nil:
		return nil, c.hsErr
	case c.rerr != nil:
		return nil, c.rerr
	case c.werr != nil:
		return nil, c.werr
	}
	plaintext, err := c.openBuffered()
	if err != nil {
		return nil, err
	}
	c.closeOnce.Do(func() {}) // the socket and the engine are the caller's now
	c.rerr, c.werr = ErrDetached, ErrDetached
	if c.rbuf != nil {
		readPool.Put(c.rbuf)
		c.rbuf = nil
	}
	return plaintext, nil
}

// openBuffered opens every whole record of the read buffer and any plaintext left in the engine
// (a few cgo calls, once per session), sending what the engine answers.
func (c *boringConn) openBuffered() ([]byte, error) {
	var plaintext []byte
	out := getBuf(smallBuf)
	defer putBuf(out)
	for c.rpos < c.rend || c.plainPending {
		res := c.eng.Open((*c.rbuf)[c.rpos:c.rend], *out)
		c.rpos += res.Consumed
		c.plainPending = res.PlainPending > 0
		plaintext = append(plaintext, (*out)[:res.Produced]...)
		if err := c.send(*out, boring.Result{OutPending: res.OutPending}); err != nil {
			return nil, err
		}
		switch res.Status {
		case boring.Closed:
			return nil, &TLSError{Op: "detach", Reason: "peer sent close_notify", Err: io.EOF}
		case boring.Fatal:
			return nil, &TLSError{Op: "detach", Reason: res.Reason}
		}
		if res.Consumed == 0 && res.Produced == 0 {
			break // the engine took nothing more: the rest waits there
		}
	}
	return plaintext, nil
}
