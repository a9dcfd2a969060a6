package ws

import "sync"

// batchPool holds MaxHeaderLen+MaxBatchSize buffers for Write, which has
// to copy the caller's bytes behind headroom anyway.
var batchPool = sync.Pool{New: func() any {
	b := make([]byte, MaxHeaderLen+MaxBatchSize)
	return &b
}}

// WriteBatch sends buf[MaxHeaderLen:] as one binary message in one socket
// write. buf[:MaxHeaderLen] is headroom: the header is written into its end,
// so nothing is copied. The payload may be at most MaxBatchSize bytes. On a
// client connection the payload is masked in place, so buf's contents are
// overwritten. On a raw stream the payload is written as it is, without a header.
func (c *Conn) WriteBatch(buf []byte) error {
	switch {
	case len(buf) < MaxHeaderLen:
		return ErrNoHeadroom
	case len(buf)-MaxHeaderLen > MaxBatchSize:
		return ErrBatchTooLarge
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	switch {
	case c.closeSent:
		return ErrClosed
	case c.raw:
		_, err := c.nc.Write(buf[MaxHeaderLen:])
		return err
	}
	return c.writeFrameLocked(OpBinary, buf)
}

// Write sends p as binary messages of at most MaxBatchSize bytes, copying
// it behind headroom in a pooled buffer. Callers that own a buffer with
// headroom should use WriteBatch, which does not copy.
func (c *Conn) Write(p []byte) (int, error) {
	bp := batchPool.Get().(*[]byte)
	defer batchPool.Put(bp)
	buf := *bp
	n := 0
	for n < len(p) {
		k := copy(buf[MaxHeaderLen:], p[n:])
		if err := c.WriteBatch(buf[:MaxHeaderLen+k]); err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// writeControl sends a ping or pong now. Once the close frame is sent
// nothing more may follow it, so the frame is dropped.
func (c *Conn) writeControl(op OpCode, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closeSent {
		return nil
	}
	n := copy(c.ctlOut[MaxHeaderLen:], payload)
	return c.writeFrameLocked(op, c.ctlOut[:MaxHeaderLen+n])
}

// writeClose sends the close frame, once; errDetached when the socket was handed over. A raw
// stream has no close frame: nothing is written, and nothing may be from then on.
func (c *Conn) writeClose(code CloseCode, reason string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	switch {
	case c.detached:
		return errDetached
	case c.closeSent:
		return nil
	}
	c.closeSent = true
	if c.raw {
		return nil
	}
	n := PutClosePayload(c.ctlOut[MaxHeaderLen:], code, reason)
	return c.writeFrameLocked(OpClose, c.ctlOut[:MaxHeaderLen+n])
}

// writeFrameLocked writes one unfragmented frame whose payload is
// buf[MaxHeaderLen:], header in the headroom, in one socket write. Every
// frame counts as a write for the keepalive: setting a flag is all the
// write path pays for it.
func (c *Conn) writeFrameLocked(op OpCode, buf []byte) error {
	payload := buf[MaxHeaderLen:]
	h := Header{Fin: true, OpCode: op, Length: int64(len(payload))}
	if c.role == RoleClient {
		h.Masked, h.Mask = true, c.masks.next()
		MaskBytes(h.Mask, 0, payload)
	}
	start := MaxHeaderLen - h.Size()
	PutHeader(buf[start:], h)
	_, err := c.nc.Write(buf[start:])
	c.wrote.Store(true)
	return err
}
