package relay

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/moonbridge/moonbridge/relay/bans"
)

// SessionInfo is one open session as the admin API lists it (GET /sessions). Player and UUID
// are the profile's on a route whose login the proxy runs, else what the client's Login Start
// says (the name a backend in online mode checks; the UUID only the client vouches for).
type SessionInfo struct {
	ID        string    `json:"id"`              // stable for the session's life, never reused by this process
	Route     string    `json:"route,omitempty"` // the route's label, once routed
	Player    string    `json:"player,omitempty"`
	UUID      string    `json:"uuid,omitempty"`
	Online    bool      `json:"online"`    // the session server vouched for Player and UUID (an auth online route)
	Client    string    `json:"client"`    // the client's address and port (after a trusted PROXY or forwarded header)
	Transport string    `json:"transport"` // minecraft, ws or wss
	BytesUp   int64     `json:"bytes_up"`  // player to backend
	BytesDown int64     `json:"bytes_down"`
	Since     time.Time `json:"since"`
	Relaying  bool      `json:"relaying"` // a backend took it: it is past the login or a ping
}

// UnknownSessionError: no open session has this id.
type UnknownSessionError struct{ ID string }

func (e *UnknownSessionError) Error() string {
	return "no open session has id " + strconv.Quote(shortID(e.ID))
}

// shortID keeps an error about a huge id readable.
func shortID(id string) string {
	if len(id) > 24 {
		return id[:24] + "..."
	}
	return id
}

// Sessions is every open session now, set up or relaying, by id.
func (s *Server) Sessions() []SessionInfo {
	list := s.sessionList()
	slices.SortFunc(list, func(a, b *session) int { return cmp.Compare(a.id, b.id) })
	out := make([]SessionInfo, 0, len(list))
	for _, sess := range list {
		out = append(out, sess.view())
	}
	return out
}

// Session is the open session with id.
func (s *Server) Session(id string) (SessionInfo, error) {
	sess, err := s.findSession(id)
	if err != nil {
		return SessionInfo{}, err
	}
	return sess.view(), nil
}

// findSession is the open session with id, a decimal number.
func (s *Server) findSession(id string) (*session, error) {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n == 0 {
		return nil, &UnknownSessionError{ID: id}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for sess := range s.sessions {
		if sess.id == n {
			return sess, nil
		}
	}
	return nil, &UnknownSessionError{ID: id}
}

// view is what the sessions API shows of s, read from any goroutine.
func (s *session) view() SessionInfo {
	up, down := s.relayed()
	p := s.player.knownPlayer()
	info := SessionInfo{
		ID: strconv.FormatUint(s.id, 10), Player: p.name, UUID: p.uuid, Online: p.online, Client: s.info.client.String(),
		Transport: s.protocol, BytesUp: up, BytesDown: down, Since: s.started.UTC(), Relaying: s.meters.started(),
		Route: s.routeName(),
	}
	return info
}

// routeName is the label of the session's route, "" while it is not routed.
func (s *session) routeName() string {
	if label := s.routeLabel.Load(); label != nil {
		return *label
	}
	return ""
}

// matches says whether b bans the session's player or client, as far as they are known now.
func (s *session) matches(b bans.Ban) bool {
	p := s.player.knownPlayer()
	return b.Matches(p.name, p.uuid, s.info.client.Addr())
}
