package relay

import (
	"errors"
	"net"

	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"

	"github.com/moonbridge/moonbridge/ws"
)

// headroom is the space in front of every backend-to-client batch where a WebSocket frame header
// is written, so that a batch leaves in one socket write without a copy.
const headroom = ws.MaxHeaderLen

// batchSize is the most a pump reads at once: one binary message of at most 64 KiB per batch.
const batchSize = ws.MaxBatchSize

// downstream is the player's side of a session: raw TCP, or a WebSocket over TCP or TLS.
type downstream interface {
	net.Conn
	// WriteBatch sends buf[headroom:] with one socket write; buf[:headroom] is free space.
	WriteBatch(buf []byte) error
	// CloseWrite tells the player nothing more will come: a TCP FIN or a WebSocket close.
	CloseWrite(reason string) error
	// CloseFor closes the connection at the end of a session that ended for reason (nil: a
	// clean end); a WebSocket close frame says why in its code.
	CloseFor(reason error)
	// socket is the plain socket to read the player's bytes from, or nil when they must come
	// through Read (WebSocket and TLS, or sniffed bytes still buffered).
	socket() net.Conn
	// loopSide is the player's side for an event loop: the socket, its codec and the stream
	// bytes read from it that nobody has consumed yet, which the loop takes over with the
	// socket. ok false: this side stays on goroutines. An error: the connection could not be
	// handed over and is closed; the session ends with the error.
	loopSide() (p loopPlayer, ok bool, err error)
}

// loopPlayer is a player's side ready for an event loop.
type loopPlayer struct {
	loop.Side
	// free releases what the codec holds outside Go's heap (a BoringSSL session) once the loop
	// is done with it: in OnClose, or when Register refused the session. nil: nothing to free.
	free func()
}

// serverClosed is the reason of the WebSocket close frame a player gets when the backend has
// ended the stream.
const serverClosed = "server closed the connection"

// tcpDownstream is a raw Minecraft connection.
type tcpDownstream struct {
	*clientConn
}

func (d tcpDownstream) WriteBatch(buf []byte) error {
	_, err := d.clientConn.Write(buf[headroom:])
	return err
}

func (d tcpDownstream) CloseWrite(string) error { return d.clientConn.CloseWrite() }

func (d tcpDownstream) CloseFor(error) { d.clientConn.Close() }

func (d tcpDownstream) socket() net.Conn { return d.clientConn.socket() }

func (d tcpDownstream) loopSide() (loopPlayer, bool, error) {
	return loopPlayer{Side: loop.Side{Conn: d.clientConn.Conn, Pending: d.clientConn.takeBuffered()}}, true, nil
}

// wsDownstream is a WebSocket connection; its WriteBatch is already the one we need.
type wsDownstream struct {
	*ws.Conn
	under *clientConn // what the WebSocket runs over: the accepted socket, or TLS over it
}

// CloseWrite sends the close frame and closes; a raw stream, which has no close frame, is
// half-closed as a TCP player is (a FIN, or TLS's close_notify), so the bridge reads to the end.
func (d wsDownstream) CloseWrite(reason string) error {
	if d.RawStream() {
		return d.under.CloseWrite()
	}
	return d.Conn.CloseWithCode(ws.CloseNormal, reason)
}

func (d wsDownstream) CloseFor(reason error) {
	d.Conn.CloseWithCode(closeCode(reason), outcome(reason))
}

func (d wsDownstream) socket() net.Conn { return nil }

// closeCode is the WebSocket close code for a session's end reason (RFC 6455 section 7.4.1):
// 1001 going away at shutdown, 1008 (policy violation) for content that is not a Minecraft
// hello, asks for a host that is not served or is a login the proxy refused (the WebSocket
// framing itself was fine, which 1002 would deny), 1013 try again later for a limit, 1011 for a
// backend that failed or could not be reached and anything else unexpected, 1000 for a clean
// end.
func closeCode(reason error) ws.CloseCode {
	switch {
	case reason == nil:
		return ws.CloseNormal
	case errors.Is(reason, errShutdown):
		return ws.CloseGoingAway
	case errors.As(reason, new(*mc.HelloError)), errors.As(reason, new(*NoRouteError)), errors.As(reason, new(*auth.LoginError)):
		return ws.ClosePolicyViolation
	case errors.As(reason, new(*LimitError)):
		return ws.CloseTryAgainLater
	}
	return ws.CloseInternalError
}
