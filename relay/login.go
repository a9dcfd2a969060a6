package relay

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/netip"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
)

// loginTimeout bounds a login the proxy runs itself, from the handshake to the Encryption
// Response: the player's client asks the session server in between.
const loginTimeout = 30 * time.Second

// backendLoginTimeout bounds the wait for a backend's velocity:player_info request.
const backendLoginTimeout = 10 * time.Second

// runLogin runs the route's login (auth online or offline) for a session that asks to join: the
// player is who the session server says, or the name offline. From a successful online login on
// the player's side is encrypted (s.login's cipher); the end line says "online" from s.login. A
// refused login has told the player why.
func (s *session) runLogin(r *bufio.Reader, hs mc.Handshake, cfg *auth.Config) error {
	s.down.SetReadDeadline(time.Now().Add(loginTimeout))
	ctx, cancel := context.WithCancel(s.srv.ctx)
	defer cancel()
	addr := s.info.client.Addr().Unmap()
	pc := auth.PlayerConn{R: r, Send: s.sendAnswer, Transfer: s.transferIn, Cookie: s.transferCookie,
		Network: s.srv.counter.network(addr), SessionServerAsked: s.traceSessionServer()}
	p, err := cfg.Login(ctx, pc, hs.Protocol, addr.String())
	var le *auth.LoginError
	if err != nil {
		p.CloseCipher() // a refusal may have been sent through it, never anything more
	}
	switch {
	case errors.As(err, &le):
		s.srv.countLogin(le.Outcome)
		s.line.answered = "login refused"
		return err
	case err != nil:
		return clientError("login", err)
	}
	s.srv.countLogin(auth.OutcomeOK)
	if s.transferCookie == auth.CookieNotAsked { // else counted where it was checked
		s.srv.countTransferCookie(p.Cookie)
	}
	s.login = p
	s.player.want = false
	s.player.setName(p.Profile.Name, p.Profile.ID.String(), p.Enc != nil)
	return nil
}

// attachLogins gives set's online routes the server's login meter, and the transfer cookie
// checkers (the routes' and the one that routes transfer logins) the server's seen-set, both
// kept across reloads (a config reloaded as it was has them already: no write then, while its
// sessions may read them).
func (s *Server) attachLogins(set *settings) {
	if tc := set.Transfer.Cookies; tc != nil && tc.seen.Load() != s.cookiesSeen {
		tc.seen.Store(s.cookiesSeen)
	}
	for _, r := range set.Routes {
		if r.Login == nil {
			continue
		}
		if r.Login.Online && r.Login.Meter != s.meter {
			r.Login.Meter = s.meter
		}
		if tc, ok := r.Login.TransferCookies.(*TransferCookies); ok && tc.seen.Load() != s.cookiesSeen {
			tc.seen.Store(s.cookiesSeen)
		}
	}
}

// network is the network the limits count addr in (networkKey), for the login meter's fairness.
func (c *counter) network(addr netip.Addr) netip.Prefix {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.networkKey(addr)
}

// loginFirstBytes is what the backend gets first after a login the proxy ran: the handshake
// (with the forwarded fields when BungeeCord's forwarding is on), Login Start, and whatever the
// player sent behind it that r holds, decrypted.
func (s *session) loginFirstBytes(r *bufio.Reader, hs mc.Handshake, route *Route) (first []byte, buffered int) {
	host := hs.Host
	if route.RewriteHost != "" {
		host = route.RewriteHost
	}
	first = s.login.BackendHello(hs, host, route.Login.Forwarding)
	rest, _ := r.Peek(r.Buffered())
	at := len(first)
	first = append(first, rest...)
	s.decrypt(first[at:])
	return first, len(rest)
}

// forwardVelocity answers the backend's velocity:player_info request and relays to the player
// what the backend sent meanwhile (Set Compression, say).
func (s *session) forwardVelocity(backend net.Conn, route *Route) error {
	backend.SetDeadline(time.Now().Add(backendLoginTimeout))
	toPlayer, err := s.login.AnswerVelocity(backend, route.Login.VelocitySecret)
	backend.SetDeadline(time.Time{})
	if err != nil {
		s.srv.countLogin(auth.OutcomeForwarding)
		s.sendAnswer(mc.AppendLoginDisconnect(nil, "The server behind this proxy did not accept its forwarding."))
		return &BackendLoginError{Err: err}
	}
	if len(toPlayer) == 0 {
		return nil
	}
	s.mover.feed(toPlayer) // the player's stream has begun: Set Compression, say
	return s.sendAnswer(toPlayer)
}

// decrypt decrypts bytes from the player in place, when the login turned a cipher on.
func (s *session) decrypt(b []byte) {
	if s.login != nil && s.login.Dec != nil {
		s.login.Dec.XORKeyStream(b, b)
	}
}

// encrypt encrypts bytes for the player in place, when the login turned a cipher on.
func (s *session) encrypt(b []byte) {
	if s.login != nil && s.login.Enc != nil {
		s.login.Enc.XORKeyStream(b, b)
	}
}

// BackendLoginError is a backend that did not finish the forwarding part of its login (no
// velocity:player_info request, a bad one, or none in time).
type BackendLoginError struct{ Err error }

func (e *BackendLoginError) Error() string { return "backend login: " + e.Err.Error() }
func (e *BackendLoginError) Unwrap() error { return e.Err }
