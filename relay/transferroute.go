package relay

import (
	"bufio"
	"bytes"
	"io"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/play"
)

// landByCookie routes a transfer login by the host in its transfer cookie, so that a player a
// drain moved lands on the route it left: its handshake names the transfer target
// (shutdown.transfer_to, the load balancer's name), which this instance's routes may match to
// another server; the cookie names the host the player joined at.
//
// On an instance with the transfer secret, a transfer login (handshake next state 3) of
// 1.20.5 or later, of a release the login table knows (its Login Start is read), is asked for
// its cookie after Login Start, before it is routed. Only a cookie
// the secret signed, for the player Login Start names, not expired and not believed here before
// (TransferCookies.check) chooses the route: a client can send any cookie, and one that is not
// believed leaves the login routed by its handshake's host, as any login. The route's access
// rules apply to the cookie's host as to a handshake's. Login Start goes back in front of what
// the player sends next, for the login or the backend to read as if nothing had been asked; the
// Cookie Response does not (the backend asked for none). A route whose login the proxy runs
// takes the verdict (auth.PlayerConn.Cookie) rather than ask again. False: the session ended
// (the player sent something else than a login, or left).
func (s *session) landByCookie(o *opening) bool {
	cookies := s.conf.Transfer.Cookies
	shape, _, known := mc.LoginShapeOf(o.hs.Protocol)
	if !s.transferIn || cookies == nil || !known || o.hs.Protocol < play.FirstProtocol {
		return true
	}
	start, frame, err := readLoginStart(o.r, shape)
	if err != nil {
		s.abort(clientError("transfer login: Login Start", err))
		return false
	}
	if err := s.sendAnswer(play.AppendCookieRequest(nil, cookies.Key())); err != nil {
		s.abort(clientError("transfer login: Cookie Request", err))
		return false
	}
	payload, present, err := auth.ReadCookieResponse(o.r, cookies.Key())
	if err != nil {
		s.abort(clientError("transfer login: Cookie Response", err))
		return false
	}
	host, verdict := "", auth.CookieAbsent
	if present {
		host, err = cookies.check(start.Name, payload)
		verdict = auth.Verdict(err)
	}
	s.transferCookie = verdict
	s.srv.countTransferCookie(verdict)
	o.r = putBack(o.r, frame, s.down)
	if host != "" {
		o.hs.Host = host
		o.hs.Raw = o.hs.AppendFrame(nil, host)
		s.line.host, s.line.byCookie = host, true
	}
	return true
}

// readLoginStart reads Login Start from r: what it says and its frame, as the player sent it.
func readLoginStart(r *bufio.Reader, shape mc.LoginShape) (mc.LoginStart, []byte, error) {
	var frame []byte
	start, err := mc.ReadParsed(r, func(b []byte) (mc.LoginStart, int, error) {
		ls, n, err := mc.ParseLoginStartFrame(b, shape)
		if err == nil {
			frame = bytes.Clone(b[:n])
		}
		return ls, n, err
	})
	return start, frame, err
}

// putBack is a reader of front, then of what r still holds, then of src (what r read from): bytes
// taken out of r to look at go back in front of the rest. All of front and r's bytes are in the
// new reader's buffer at once, as r's were, so that the first bytes a backend gets (which take
// what is buffered) miss none of them before the relay reads src itself.
func putBack(r *bufio.Reader, front []byte, src io.Reader) *bufio.Reader {
	rest, _ := r.Peek(r.Buffered())
	pending := append(bytes.Clone(front), rest...)
	back := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(pending), src), max(sniffBufferSize, len(pending)))
	back.Peek(len(pending)) // one read of the bytes.Reader: src is not read
	return back
}
