package relay

import (
	"errors"
	"strconv"
	"sync/atomic"
)

// httpConn is a client connection served by net/http for the WebSocket upgrade. net/http
// answers malformed requests (400) and oversized headers (431) itself, without asking a handler,
// so the status line of the first response written on the connection is what tells a refused
// request apart from an upgrade (101) or a limit refusal (429, reported by admit).
type httpConn struct {
	*clientConn
	ln       *listener
	answered atomic.Bool
}

func (c *httpConn) Write(p []byte) (int, error) {
	if !c.answered.Load() && c.answered.CompareAndSwap(false, true) {
		c.noteStatus(p)
	}
	return c.clientConn.Write(p)
}

// noteStatus reports an HTTP error answer by its status ("HTTP/1.1 431 ...").
func (c *httpConn) noteStatus(response []byte) {
	if len(response) < 12 || string(response[:5]) != "HTTP/" {
		return
	}
	status, err := strconv.Atoi(string(response[9:12]))
	if err != nil || status < 400 || status == 429 {
		return
	}
	reason := refusedHTTPOther
	switch status {
	case 400:
		reason = refusedHTTP400
	case 404:
		reason = refusedHTTP404
	case 426:
		reason = refusedHTTP426
	case 431:
		reason = refusedHTTP431
	}
	c.ln.report(c.info, c.info.clientAddr(), reason, errors.New("answered HTTP "+strconv.Itoa(status)))
}
