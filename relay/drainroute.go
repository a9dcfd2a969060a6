package relay

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"time"
)

// RouteMoves is what MoveRoute did.
type RouteMoves struct {
	Route        string `json:"route"`
	To           string `json:"to"`           // where the players were sent, host:port
	Transferring int    `json:"transferring"` // players sent a Transfer
	Staying      int    `json:"staying"`      // players of the route that cannot be sent there
	Note         string `json:"note,omitempty"`
}

// stayingNote says why a route's players stay after its move.
const stayingNote = "players that stay: WebSocket players (their client, or their bridge, comes back only " +
	"through the CDN or this listener, so to this instance and route), clients before 1.20.5, " +
	"streams the backend encrypts and players still logging in"

// MoveRoute sends the players of the route labelled route a Transfer to host:port, another
// instance (with the signed cookie of Config.Transfer, which names the host each joined at,
// so that they land on the same route there), without stopping anything: the admin endpoint's
// POST /transfer, to empty this instance's route, say before its backend or this instance goes
// down. An address this instance listens on is refused (OwnListenerError): the players would
// come straight back to the same route. Only raw TCP players can go to an address
// (addressMoves); the others stay, counted.
func (s *Server) MoveRoute(route, host string, port uint16) (RouteMoves, error) {
	if err := checkTransferHost(host, port); err != nil {
		return RouteMoves{}, err
	}
	if !s.HasRoute(route) {
		return RouteMoves{}, &UnknownRouteError{Route: route}
	}
	if err := s.checkNotOwnListener(host, port); err != nil {
		return RouteMoves{}, err
	}
	m := RouteMoves{Route: route, To: net.JoinHostPort(host, strconv.Itoa(int(port)))}
	cookies := s.settings().Transfer.Cookies
	for _, sess := range s.sessionList() {
		if sess.routeName() != route {
			continue
		}
		moves, err := addressMoves(sess)
		if err != nil {
			s.transfers.moves.WithLabelValues(transferNotMovable).Inc()
			m.Staying++
			continue
		}
		sess.transferTo(moves, host, port, cookies, s.countMove) // moveAlready: on its way already
		m.Transferring++
	}
	if m.Staying > 0 {
		m.Note = stayingNote
	}
	return m, nil
}

// UnknownRouteError: no route has this label.
type UnknownRouteError struct{ Route string }

func (e *UnknownRouteError) Error() string { return "no route is labelled " + strconv.Quote(e.Route) }

// OwnListenerError: a move names an address this instance accepts on.
type OwnListenerError struct{ To, Listener string }

func (e *OwnListenerError) Error() string {
	return "to " + e.To + " reaches this instance's own listener " + e.Listener +
		": the players would come straight back to the same route; name another instance's address"
}

// resolveWait bounds the look-up of a move's host name.
const resolveWait = 2 * time.Second

// checkNotOwnListener refuses host:port when it reaches one of the listeners: the same address,
// or, for a listener on every address (0.0.0.0, ::), an address of this machine. A name is
// resolved first; one that does not resolve here is refused too (a Transfer to it is most
// likely a typo). What it cannot see: a load balancer's address whose pool holds this instance,
// or a port a NAT maps to a listener (docs/running.md says so).
func (s *Server) checkNotOwnListener(host string, port uint16) error {
	to := net.JoinHostPort(host, strconv.Itoa(int(port)))
	ctx, cancel := context.WithTimeout(context.Background(), resolveWait)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return &TransferTargetError{Target: to, Reason: "does not resolve from this instance: " + err.Error()}
	}
	for _, a := range s.Addrs() {
		for _, ip := range ips {
			if reachesListener(netip.AddrPortFrom(ip, port), addrPortOf(a)) {
				return &OwnListenerError{To: to, Listener: a.String()}
			}
		}
	}
	return nil
}

// reachesListener says whether a listener on ln would accept a connection to to: the same
// port, and the same address or, for a listener on every address, one of this machine's.
func reachesListener(to, ln netip.AddrPort) bool {
	ip, at := to.Addr().Unmap(), ln.Addr().Unmap()
	return to.Port() == ln.Port() && (ip == at || at.IsUnspecified() && isThisMachine(ip))
}

// isThisMachine says whether ip is a loopback address or one of this machine's interfaces'.
func isThisMachine(ip netip.Addr) bool {
	if ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	return slices.ContainsFunc(addrs, func(a net.Addr) bool {
		n, ok := a.(*net.IPNet)
		if !ok {
			return false
		}
		local, _ := netip.AddrFromSlice(n.IP)
		return local.Unmap() == ip
	})
}
