package ws

import "net"

// Detach takes a server connection off its goroutine, for an event loop (loop): it stops
// the keepalive and hands over the socket under the WebSocket (the TCP connection, or for wss
// the TLS one) and the reading state, for NewLoopCodec. Call it between Reads, from the
// goroutine that reads, with no Write running: a Read waiting in the socket or a frame being
// written (the keepalive's ping included) is ErrBusy, and the connection carries on as before.
// A connection closed, or whose stream has ended, is ErrClosed.
//
// Nothing read is left behind: Read parses every byte it reads, so a frame cut by the last Read
// (its header, its payload or a control frame's) continues in the state, and what the peer sent
// since is still in the socket. The payload bytes that Reads returned are the caller's (the
// relay's Side.Pending).
//
// Early data no Read has returned yet are ErrEarlyDataUnread: they are not in the socket, and
// the connection carries on as before. A raw stream (RawStream) detaches as any other; it has no
// frames, so its socket carries the stream itself and the state is of no use (the caller hands
// it on as a plain stream, with no WebSocket codec).
//
// After Detach the Conn writes nothing and Close leaves the socket alone: it is the caller's.
func (c *Conn) Detach() (net.Conn, LoopState, error) {
	switch {
	case c.role != RoleServer:
		return nil, LoopState{}, ErrNotServer
	case c.reader.Load()&readerWaiting != 0:
		return nil, LoopState{}, ErrBusy
	case len(c.early) > 0:
		return nil, LoopState{}, ErrEarlyDataUnread
	case c.rd.err != nil:
		return nil, LoopState{}, ErrClosed
	}
	if !c.wmu.TryLock() {
		return nil, LoopState{}, ErrBusy
	}
	if c.closeSent {
		c.wmu.Unlock()
		return nil, LoopState{}, ErrClosed
	}
	c.closeSent, c.detached = true, true // a ping that lost the race for wmu is dropped
	c.wmu.Unlock()
	c.ka.stop()
	return c.nc, LoopState{p: c.rd, cfg: c.cfg, log: c.log}, nil
}
