package relay

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/play"
)

// Transfer is where a drain moves the players it can (docs/running.md, "Moving players instead
// of dropping them"): a client of 1.20.5 or later, whose stream the proxy can put a packet in
// (mover.go), gets a Store Cookie and a Transfer, and joins the address it names by itself.
type Transfer struct {
	// Host and Port are where a raw TCP player goes: a name that reaches a live instance (the
	// load balancer's, the Service's). A player that came through moonbridge's client bridge
	// goes back to its bridge instead (ws.BridgeHeader), which opens a new WebSocket through the
	// CDN. Host "": nobody is moved.
	Host string
	Port uint16
	// Cookies signs the cookie set before each transfer, which a transfer login shows the next
	// instance (transfercookie.go); nil: no cookie.
	Cookies *TransferCookies
}

// Enabled says whether a drain moves players.
func (t Transfer) Enabled() bool { return t.Host != "" }

// ParseTransferTarget reads shutdown.transfer_to: host:port, the host a name or an IP address.
func ParseTransferTarget(s string) (host string, port uint16, err error) {
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, &TransferTargetError{Target: s, Reason: "want host:port"}
	}
	n, err := strconv.ParseUint(p, 10, 16)
	switch {
	case err != nil || n == 0:
		return "", 0, &TransferTargetError{Target: s, Reason: "the port must be 1 to 65535"}
	case h == "" || len(h) > maxTransferHost:
		return "", 0, &TransferTargetError{Target: s, Reason: fmt.Sprintf("the host must be 1 to %d characters", maxTransferHost)}
	}
	return h, uint16(n), nil
}

// TransferTargetError is a shutdown.transfer_to that is no address a client can be sent to.
type TransferTargetError struct{ Target, Reason string }

func (e *TransferTargetError) Error() string {
	return "transfer target " + strconv.Quote(e.Target) + ": " + e.Reason
}

// maxTransferHost bounds the host of a Transfer: a DNS name is at most 253 characters.
const maxTransferHost = 253

// transferLeave bounds how long a player that was sent a Transfer has to leave by itself; then
// its session is closed (a client that ignores the packet, or a lost one).
const transferLeave = 10 * time.Second

// tellWait bounds how long the end of a drain waits for the Disconnects it sent to go out.
const tellWait = 200 * time.Millisecond

// moveWait bounds how long the start of a drain waits for its Transfers to go out, for its count.
const moveWait = time.Second

// errTransferred ends a transferred player's session that did not leave within transferLeave:
// the proxy closed it (a drain counts it closed), with outcome outcomeTransferIgnored.
var errTransferred = errors.New("transferred; the client did not leave")

// outcomeTransferIgnored is errTransferred's outcome in moonbridge_sessions_total.
const outcomeTransferIgnored = "transfer_ignored"

// moveFunc puts build's packets into the session's stream to the player (mover.request, on
// the session's data path); done says whether they went out.
type moveFunc func(build func(*play.Tracker) []byte, done func(sent bool))

// sessionMoves is what a session knows for moving its player, from when its relay started: a
// session that cannot be moved (no mover) keeps none.
type sessionMoves struct {
	send        moveFunc
	joinHost    string                 // the handshake's host
	asked       atomic.Bool            // a Transfer was asked for: the session is moved once
	transferred atomic.Pointer[string] // where the player was sent, for the end line
}

// Outcomes of moveOut.
type moveOutcome uint8

const (
	moveNotMovable moveOutcome = iota // the session cannot be moved
	moveAsked                         // the packets are on their way; done will say
	moveAlready                       // an earlier request moves it (a drain that began as its relay did, a route's move): done is not called
)

// moveOut sends the player a Store Cookie and a Transfer, once per session; done runs once the
// packets went out or could not (moveAsked only).
func (s *session) moveOut(t Transfer, done func(sent bool)) moveOutcome {
	moves := s.moves.Load()
	if moves == nil {
		return moveNotMovable
	}
	host, port, ok := s.transferTarget(t, moves.joinHost)
	if !ok {
		return moveNotMovable
	}
	return s.transferTo(moves, host, port, t.Cookies, done)
}

// transferTo sends the player a Store Cookie (when cookies sign one) and a Transfer to
// host:port, once per session; done runs once the packets went out or could not (moveAsked
// only).
func (s *session) transferTo(moves *sessionMoves, host string, port uint16, cookies *TransferCookies, done func(sent bool)) moveOutcome {
	if !moves.asked.CompareAndSwap(false, true) {
		return moveAlready
	}
	// Off the data path, which may still be setting the name. The host keeps the player's route
	// where it lands (transferroute.go).
	cookie := cookies.issue(s.player.knownName(), moves.joinHost)
	target := net.JoinHostPort(host, strconv.Itoa(int(port)))
	moves.send(func(tr *play.Tracker) []byte {
		var b []byte
		if cookie != nil {
			b = tr.AppendStoreCookie(b, TransferCookieKey, cookie)
		}
		return tr.AppendTransfer(b, host, port)
	}, func(sent bool) {
		if sent {
			moves.transferred.Store(&target)
			time.AfterFunc(transferLeave, func() { s.abort(errTransferred) })
		}
		done(sent)
	})
	return moveAsked
}

// transferTarget is where the player goes: its bridge for a bridged player (at joinHost, the
// host the game named in its handshake, and the bridge's port), t's address for a
// raw TCP player; none for a WebSocket player without moonbridge's bridge (its client could not
// come back through the CDN) or when t moves nobody.
func (s *session) transferTarget(t Transfer, joinHost string) (string, uint16, bool) {
	switch {
	case !t.Enabled():
		return "", 0, false
	case s.info.bridge.IsValid():
		// The name the game reached its bridge by (the handshake's host, "localhost" for a
		// player who typed localhost:25565), so that it comes back on the same route; the
		// bridge's address when there is none.
		host := joinHost
		if host == "" || len(host) > maxTransferHost {
			host = s.info.bridge.Addr().String()
		}
		return host, s.info.bridge.Port(), true
	case s.protocol == string(Minecraft):
		return t.Host, t.Port, true
	}
	return "", 0, false
}

// tell sends the player a Disconnect with reason where the stream has room for one; false when
// it has not. done runs once it went out or could not.
func (s *session) tell(reason string, done func(sent bool)) bool {
	moves := s.moves.Load()
	if moves == nil {
		return false
	}
	moves.send(func(tr *play.Tracker) []byte { return tr.AppendDisconnect(nil, reason) }, done)
	return true
}

// startMoves makes a joining player's session (one with a mover) movable once it relays: send
// puts packets into its stream. A session whose relay starts while the server drains is moved
// at once.
func (s *session) startMoves(send moveFunc) {
	s.moves.Store(&sessionMoves{send: send, joinHost: s.mover.joinHost})
	if s.srv.draining.Load() {
		s.srv.moveOne(s, func(bool) {})
	}
}

// joining is a login (or a transfer login) whose protocol has Transfer: its session gets a mover.
func (s *session) joining(hs mc.Handshake) bool {
	return hs.NextState != mc.NextStatus && hs.Protocol >= play.FirstProtocol
}

// transferLogin takes a transfer handshake (next state 3: a player another server sent here) as
// the login it is: routed, checked and metered as any, and an ordinary login for the backend,
// which sees the player join (a vanilla server refuses transfers unless accepts-transfers is
// on). The session remembers that it came by transfer (its cookie, the metric).
func (s *session) transferLogin(hs mc.Handshake) mc.Handshake {
	s.transferIn = true
	s.srv.transfers.logins.Inc()
	hs.NextState = mc.NextLogin
	hs.Raw = hs.AppendFrame(nil, hs.Host)
	return hs
}
