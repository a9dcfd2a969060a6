package replicas

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// playerCache is what the last heartbeat learnt of the other replicas' players, and the routes
// this replica has published a count for (so that a route it no longer counts is written as 0
// once).
type playerCache struct {
	mu        sync.Mutex
	others    map[string]int
	at        time.Time // when others was learnt
	published map[string]bool
}

func newPlayerCache() playerCache {
	return playerCache{others: map[string]int{}, published: map[string]bool{}}
}

func (s *Store) key(parts ...string) string {
	k := s.cfg.KeyPrefix
	for i, p := range parts {
		if i > 0 {
			k += ":"
		}
		k += p
	}
	return k
}

func (s *Store) liveMillis() string { return strconv.FormatInt(s.cfg.liveFor().Milliseconds(), 10) }

// OtherPlayers is how many players the other live replicas have on route, as the last
// heartbeat learnt; 0 when that is older than the replicas' liveness (Redis away).
func (s *Store) OtherPlayers(route string) int {
	s.players.mu.Lock()
	defer s.players.mu.Unlock()
	return s.othersLocked(route)
}

// othersLocked is OtherPlayers with s.players.mu held.
func (s *Store) othersLocked(route string) int {
	if time.Now().Sub(s.players.at) > s.cfg.liveFor() {
		return 0
	}
	return s.players.others[route]
}

// heartbeat publishes this replica's counts and attack mode rates and reads the others', and
// counts the replicas on its egress address.
func (s *Store) heartbeat() {
	s.countEgress()
	s.publishAttack()
	perRoute, version := s.counts()
	routes, keys, args := s.heartbeatArgs(perRoute, version)
	var others []int64
	err := s.call("heartbeat", func(ctx context.Context) (err error) {
		others, err = heartbeatScript.Run(ctx, s.rdb, keys, args...).Int64Slice()
		return err
	})
	if err != nil || len(others) != len(routes) {
		return
	}
	s.players.mu.Lock()
	defer s.players.mu.Unlock()
	clear(s.players.others)
	clear(s.players.published)
	for i, route := range routes {
		s.players.others[route] = int(others[i])
		if _, counted := perRoute[route]; counted {
			s.players.published[route] = true
		}
	}
	s.players.at = time.Now()
}

// heartbeatArgs are the heartbeat script's routes, keys and arguments: every route the relay
// counts now (Counts names the routes with max_players even without players) and every route
// published before.
func (s *Store) heartbeatArgs(perRoute map[string]int, version uint64) (routes, keys []string, args []any) {
	s.players.mu.Lock()
	for route := range s.players.published {
		routes = append(routes, route)
	}
	s.players.mu.Unlock()
	for route := range perRoute {
		if !s.players.wasPublished(route) {
			routes = append(routes, route)
		}
	}
	keys = []string{s.key("replicas")}
	args = []any{s.cfg.ReplicaID, s.liveMillis(), version}
	for _, route := range routes {
		keys = append(keys, s.key("players", route))
		args = append(args, perRoute[route])
	}
	return routes, keys, args
}

func (p *playerCache) wasPublished(route string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.published[route]
	return ok
}

// note keeps what a join learnt of the other replicas' players on route.
func (p *playerCache) note(route string, others int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.others[route] = others
	p.published[route] = true
}
