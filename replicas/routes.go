package replicas

import (
	"context"
	"errors"
	"strconv"
	"sync"
)

// sharedRoutes is the routes API's routes as this replica last read or wrote them: their text,
// their version in Redis, and what is told of a change.
type sharedRoutes struct {
	mu      sync.Mutex
	version string // "0": none stored yet, or none read yet
	text    []byte // nil: none read or written yet
	apply   func(text []byte)
}

// ErrRoutesChanged is SaveRoutes' answer when another replica changed the routes since this one
// last read them: the change is not made, and the next refresh brings the other's.
var ErrRoutesChanged = errors.New("the routes API's routes were changed on another replica meanwhile; read them again and retry")

// FollowRoutes has apply called with the routes API's routes (the text SaveRoutes was given)
// whenever another replica changed them, and once at start when Redis holds some; it is called
// before Start, on the refresh goroutine, one call at a time.
func (s *Store) FollowRoutes(apply func(text []byte)) {
	s.routes.mu.Lock()
	defer s.routes.mu.Unlock()
	s.routes.apply = apply
}

// SaveRoutes stores text as the routes API's routes for every replica, when no other replica
// changed them since this one last read them (ErrRoutesChanged otherwise). It waits at most
// the background bound: a routes API change fails while Redis is away, as one that cannot be
// saved to the state file does.
func (s *Store) SaveRoutes(text []byte) error {
	s.routes.mu.Lock()
	defer s.routes.mu.Unlock()
	return s.saveRoutesLocked(text)
}

// saveRoutesLocked is SaveRoutes with s.routes.mu held.
func (s *Store) saveRoutesLocked(text []byte) error {
	var version int64
	err := s.call("save routes", func(ctx context.Context) (err error) {
		version, err = saveRoutesScript.Run(ctx, s.rdb, []string{s.key("routes")}, s.routes.version, text).Int64()
		return err
	})
	switch {
	case err != nil:
		return err
	case version < 0:
		return ErrRoutesChanged
	}
	s.routes.version, s.routes.text = strconv.FormatInt(version, 10), text
	return nil
}

// refreshRoutes reads the routes and, when their version is not the one this replica last saw,
// hands them to the follower, outside the lock (the follower takes the route book's lock, under
// which the API's changes call SaveRoutes); the version is marked seen only once the follower
// has them, so that no change is saved over routes this replica has not taken. When Redis
// holds none (it came back empty after a restart) a replica that has some writes them again.
func (s *Store) refreshRoutes() {
	s.routes.mu.Lock()
	apply, before := s.routes.apply, s.routes.version
	s.routes.mu.Unlock()
	if apply == nil {
		return
	}
	var got []any
	err := s.call("read routes", func(ctx context.Context) (err error) {
		got, err = s.rdb.HMGet(ctx, s.key("routes"), "version", "text").Result()
		return err
	})
	if err != nil || len(got) != 2 {
		return
	}
	version, _ := got[0].(string)
	text, _ := got[1].(string)
	s.routes.mu.Lock()
	seen, mine := s.routes.version, s.routes.text
	s.routes.mu.Unlock()
	switch {
	case seen != before:
		// This replica saved a change while the read was on its way: what was read may be
		// from before it, and the next refresh reads after it.
	case version == "" && mine != nil:
		s.republishRoutes(mine)
	case version == "" || version == seen:
	default:
		apply([]byte(text))
		s.routes.mu.Lock()
		s.routes.version, s.routes.text = version, []byte(text)
		s.routes.mu.Unlock()
	}
}

// republishRoutes writes text, the routes this replica has, to a Redis that holds none; when
// another replica was first, its routes come with the next refresh.
func (s *Store) republishRoutes(text []byte) {
	s.routes.mu.Lock()
	defer s.routes.mu.Unlock()
	s.routes.version = "0"
	s.saveRoutesLocked(text)
}
