package relay

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"time"
)

// maxRefusedRequest bounds what is read of a refused wss client's HTTP request before the 429:
// its head is read only so that closing after the answer does not reset the connection under it.
const maxRefusedRequest = 16 << 10

// answerTLS tells a wss client a limit refused why, as a ws client is told: it finishes the TLS
// handshake, reads the request and answers HTTP 429 with the reason, so that the bridge can show
// it to the player. In attack mode it only returns: the caller closes the connection before TLS.
//
// The refusal gave back the connection's slots; while it answers, the connection holds a slot
// of the total limit again (none free: no answer), so refused clients count in max_connections
// like any other. It has the handshake timeout for TLS and the request, as any wss client, and
// runs within the refusal answers' bound: at most maxRefusalAnswers answers at once.
func (ln *listener) answerTLS(conn *clientConn, reason error) {
	if ln.srv.underAttack() {
		return
	}
	release, err := ln.srv.counter.acquireTotal()
	if err != nil {
		return
	}
	defer release()
	tlsConn := ln.srv.settings().TLS.Wrap(conn)
	defer tlsConn.Close()
	stop := context.AfterFunc(ln.srv.ctx, func() { conn.Close() })
	defer stop()
	conn.SetDeadline(time.Now().Add(ln.srv.settings().limits.HandshakeTimeout))
	if tlsConn.HandshakeContext(ln.srv.ctx) != nil {
		return
	}
	if _, err := http.ReadRequest(bufio.NewReader(io.LimitReader(tlsConn, maxRefusedRequest))); err != nil {
		return
	}
	tlsConn.Write(http429(reason.Error()))
}
