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
// does a connection that cannot be detached now (a keepalive ping being written).
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
	if plain {
		return loopPlayer{Side: loop.Side{Conn: tcp, Codec: wsLoopCodec(state, nil)}}, true, nil
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

// wssLoopSide detaches the BoringSSL session under a detached WebSocket. What TLS had opened
// and the WebSocket not yet read is parsed here (the Pending payload; a pong or close it asks
// for is sent before the loop takes over). The WebSocket is spent already: on an error the
// connection is closed and the session ends.
func wssLoopSide(under *clientConn, state ws.LoopState) (loopPlayer, error) {
	raw, plaintext, tls, err := gossl.DetachBoring(under.Conn)
	if err != nil {
		under.Close()
		return loopPlayer{}, clientError("detaching TLS", err)
	}
	// raw is what TLS ran over: the accepted connection, whose socket goes to the loop once
	// the sniffer's bytes were all read (the handshake reads them).
	sock := tcpUnder(raw)
	if sock == nil {
		raw.Close()
		tls.Free()
		return loopPlayer{}, clientError("detaching TLS", errNotTheSocket)
	}
	codec := wsLoopCodec(state, tls)
	n, reply, err := codec.Prime(plaintext)
	if len(reply) > 0 { // a pong, or the answer to a close or to bad input
		sock.SetWriteDeadline(time.Now().Add(time.Second))
		_, werr := sock.Write(reply)
		sock.SetWriteDeadline(time.Time{})
		err = errors.Join(err, werr)
	}
	if err != nil {
		raw.Close()
		tls.Free()
		return loopPlayer{}, clientError("what arrived before the handover", err)
	}
	return loopPlayer{Side: loop.Side{Conn: sock, Codec: codec, Pending: plaintext[:n]}, free: tls.Free}, nil
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
