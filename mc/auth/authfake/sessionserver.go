package authfake

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/mc/auth"
)

// SessionServer is a fake session server: a client's Join records a (name, server hash), and
// hasJoined answers the profile for a recorded pair, 204 otherwise.
type SessionServer struct {
	URL string

	http *http.Server
	done chan error // Serve's end

	mu       sync.Mutex
	joins    map[[2]string]auth.Profile
	ips      []string      // the ip parameter of every hasJoined, "" when absent
	times    []time.Time   // when each hasJoined arrived
	retry    string        // the Retry-After header of a status answer, "" for none
	delay    time.Duration // before answering (a slow session server)
	status   int           // answered instead of the profile when not 0 (a failing one)
	profiles map[string]auth.Profile
}

// ListenSessionServer starts a fake session server on addr (host:port; port 0 picks one).
func ListenSessionServer(addr string) (*SessionServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &SessionServer{URL: "http://" + ln.Addr().String(), joins: map[[2]string]auth.Profile{},
		profiles: map[string]auth.Profile{}, done: make(chan error, 1)}
	s.http = &http.Server{Handler: http.HandlerFunc(s.hasJoined), ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.http.Serve(ln) }()
	return s, nil
}

// Close stops the server and the requests in progress.
func (s *SessionServer) Close() error {
	err := s.http.Close()
	if serveErr := <-s.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}

// Join records that the account name joined with hash, as the client's join call does; the
// profile the server answers is Profile(name) unless SetProfile changed it.
func (s *SessionServer) Join(name, hash string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.profiles[name]
	if !ok {
		p = Profile(name)
	}
	s.joins[[2]string{name, hash}] = p
}

// Joins is how many joins were recorded: a player who got no Encryption Request made none.
func (s *SessionServer) Joins() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.joins)
}

// SetProfile makes the server answer p for logins as name (a name mismatch, say).
func (s *SessionServer) SetProfile(name string, p auth.Profile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.profiles[name] = p
}

// SetDelay makes every answer wait d (a slow session server).
func (s *SessionServer) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// SetStatus makes every answer an HTTP status without a profile (0: back to normal).
func (s *SessionServer) SetStatus(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = code
}

// SetRetryAfter makes the status answers of SetStatus carry Retry-After: v ("" for none).
func (s *SessionServer) SetRetryAfter(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retry = v
}

// Times is when each hasJoined so far arrived, in order.
func (s *SessionServer) Times() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.times...)
}

// IPs is the ip parameter of every hasJoined so far.
func (s *SessionServer) IPs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ips...)
}

func (s *SessionServer) hasJoined(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	p, ok := s.joins[[2]string{q.Get("username"), q.Get("serverId")}]
	delay, status, retry := s.delay, s.status, s.retry
	s.ips = append(s.ips, q.Get("ip"))
	s.times = append(s.times, time.Now())
	s.mu.Unlock()
	if r.URL.Path != "/session/minecraft/hasJoined" {
		status = http.StatusNotFound
	}
	select {
	case <-time.After(delay):
	case <-r.Context().Done():
		return
	}
	switch {
	case status != 0:
		if retry != "" {
			w.Header().Set("Retry-After", retry)
		}
		w.WriteHeader(status)
	case !ok:
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(p)
	}
}

// Profile is the profile the fake server gives name: a UUID made from the name (not the offline
// one, so that a test can tell them apart) and a signed skin property.
func Profile(name string) auth.Profile {
	p := auth.OfflineProfile("online:" + name)
	p.Name = name
	p.Properties = []auth.Property{{Name: "textures", Value: "dGV4dHVyZXM=", Signature: "c2lnbmF0dXJl"}}
	return p
}
