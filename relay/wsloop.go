package relay

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/pipe"
	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/ws"
)

// loopSide takes a WebSocket off its goroutine (ws.Conn.Detach) with its reading state, for
// ws's loop codec: over the plain accepted socket (ws), or over a TLS session that can detach
// (wss over BoringSSL), which goes with it as the codec under the WebSocket
// (gossl.DetachBoring). A TLS session that cannot (crypto/tls) stays on goroutines, and so
// does a connection that cannot be detached now (a keepalive ping being written, early data
// not read yet). A raw stream (ws.Conn.RawStream) has no frames: it skips the WebSocket codec,
// as a Minecraft TCP player does, with the TLS records alone for wss.
func (d wsDownstream) loopSide() (loopPlayer, bool, error) {
	sock := d.under.socket() // nil while sniffed bytes wait unread
	tcp, plain := sock.(*net.TCPConn)
	detachable := d.under.info.tls != nil && d.under.info.tls.CanDetach()
	if !plain && !detachable {
		return loopPlayer{}, false, nil
	}
	_, state, err := d.Conn.Detach()
	if err != nil {
		return loopPlayer{}, false, nil
	}
	switch {
	case plain && d.RawStream():
		return loopPlayer{Side: loop.Side{Conn: tcp}}, true, nil
	case plain:
		return loopPlayer{Side: loop.Side{Conn: tcp, Codec: wsLoopCodec(state, nil)}}, true, nil
	case d.RawStream():
		p, err := rawWSSLoopSide(d.under)
		return p, err == nil, err
	}
	p, err := wssLoopSide(d.under, state)
	return p, err == nil, err
}

// wsLoopCodec is the loop codec of a detached WebSocket, with the relay's close frames: 1000
// "server closed the connection" when the backend ended the stream, the code and outcome of the
// session's reason otherwise (as wsDownstream's CloseWrite and CloseFor send them).
func wsLoopCodec(state ws.LoopState, inner loop.Codec) *ws.LoopCodec {
	codec := ws.NewLoopCodec(state, inner)
	codec.SetClose(ws.CloseNormal, serverClosed)
	codec.SetCloseFor(func(reason error) (ws.CloseCode, string) {
		reason = endReason(reason)
		return closeCode(reason), outcome(reason)
	})
	return codec
}

// detachedTLS is a BoringSSL session taken off its goroutine: the accepted socket under it, the
// plaintext TLS had opened and nobody read yet, and the session as the loop codec of its records.
type detachedTLS struct {
	raw       net.Conn // what TLS ran over: the accepted connection
	sock      *net.TCPConn
	plaintext []byte
	tls       gossl.LoopCodec
}

// detachTLS detaches the BoringSSL session under a detached WebSocket. The WebSocket is spent
// already: on an error the connection is closed and the session ends.
func detachTLS(under *clientConn) (detachedTLS, error) {
	raw, plaintext, tls, err := gossl.DetachBoring(under.Conn)
	if err != nil {
		under.Close()
		return detachedTLS{}, clientError("detaching TLS", err)
	}
	// The accepted connection's socket goes to the loop once the sniffer's bytes were all read
	// (the handshake reads them).
	d := detachedTLS{raw: raw, sock: tcpUnder(raw), plaintext: plaintext, tls: tls}
	if d.sock == nil {
		d.close()
		return detachedTLS{}, clientError("detaching TLS", errNotTheSocket)
	}
	return d, nil
}

// close ends a detached session that does not reach the loop.
func (d detachedTLS) close() {
	d.raw.Close()
	d.tls.Free()
}

// wssLoopSide is the loop side of a detached WebSocket over detached TLS. What TLS had opened
// and the WebSocket not yet read is parsed here (the Pending payload; a pong or close it asks
// for is sent before the loop takes over); on an error the connection is closed.
func wssLoopSide(under *clientConn, state ws.LoopState) (loopPlayer, error) {
	d, err := detachTLS(under)
	if err != nil {
		return loopPlayer{}, err
	}
	codec := wsLoopCodec(state, d.tls)
	n, reply, err := codec.Prime(d.plaintext)
	if len(reply) > 0 { // a pong, or the answer to a close or to bad input
		d.sock.SetWriteDeadline(time.Now().Add(time.Second))
		_, werr := d.sock.Write(reply)
		d.sock.SetWriteDeadline(time.Time{})
		err = errors.Join(err, werr)
	}
	if err != nil {
		d.close()
		return loopPlayer{}, clientError("what arrived before the handover", err)
	}
	return loopPlayer{Side: loop.Side{Conn: d.sock, Codec: codec, Pending: d.plaintext[:n]}, free: d.tls.Free}, nil
}

// rawWSSLoopSide is the loop side of a raw stream over detached TLS: the TLS records are the only
// codec, and what TLS had opened is stream bytes, the side's Pending.
func rawWSSLoopSide(under *clientConn) (loopPlayer, error) {
	d, err := detachTLS(under)
	if err != nil {
		return loopPlayer{}, err
	}
	return loopPlayer{Side: loop.Side{Conn: d.sock, Codec: d.tls, Pending: d.plaintext}, free: d.tls.Free}, nil
}

// clientError names the player's side as the one that failed, as the pumps do.
func clientError(what string, err error) error {
	return &pipe.SideError{Side: "client", Err: fmt.Errorf("%s: %w", what, err)}
}

// errNotTheSocket: what TLS ran over is not the accepted socket with nothing left unread.
var errNotTheSocket = errors.New("what TLS runs over is not a plain socket with every byte read")

// tcpUnder is the TCP socket under raw, what TLS ran over (the accepted connection), once the
// bytes its sniffer read are all consumed (the handshake reads them); nil otherwise.
func tcpUnder(raw net.Conn) *net.TCPConn {
	cc, ok := raw.(*clientConn)
	if !ok {
		return nil
	}
	tcp, _ := cc.socket().(*net.TCPConn)
	return tcp
}
