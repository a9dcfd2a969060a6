package replicas

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrNetworkFull is Seat's answer when the route's players across the replicas would pass its
// max_players.
var ErrNetworkFull = errors.New("the route is full across the replicas")

// seatLanes let one join per route at a time ask Redis, so that each asks with the players
// admitted before it and not with joins still waiting, which may yet be refused.
type seatLanes struct {
	mu    sync.Mutex
	lanes map[string]chan struct{}
}

// lane is route's lane: a channel that holds the join asking now.
func (l *seatLanes) lane(route string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lanes == nil {
		l.lanes = map[string]chan struct{}{}
	}
	if l.lanes[route] == nil {
		l.lanes[route] = make(chan struct{}, 1)
	}
	return l.lanes[route]
}

// Seat asks Redis whether one more player fits on route: once it is the route's only join
// asking on this replica, count says this replica's players on route with the new one and
// their version. The join waits at most Settings.JoinWait in all, for its turn and Redis'
// answer; without an answer in time (or while Redis is away, without asking) it is admitted,
// and the caller's own count of this replica is what holds. Only ErrNetworkFull refuses.
func (s *Store) Seat(route string, maxPlayers int, count func() (here int, version uint64)) error {
	if s.Away() {
		return nil
	}
	deadline := time.Now().Add(s.cfg.JoinWait)
	lane := s.seats.lane(route)
	turn := time.NewTimer(s.cfg.JoinWait)
	defer turn.Stop()
	select {
	case lane <- struct{}{}:
		defer func() { <-lane }()
	case <-turn.C:
		return nil // the joins before it took the bound
	}
	here, version := count()
	keys := []string{s.key("replicas"), s.key("players", route)}
	var answer []int64
	err := s.callWithin("seat", time.Until(deadline), func(ctx context.Context) (err error) {
		answer, err = seatScript.Run(ctx, s.rdb, keys, s.cfg.ReplicaID, s.liveMillis(), version, here, maxPlayers).Int64Slice()
		return err
	})
	if err != nil || len(answer) != 2 {
		return nil
	}
	s.players.note(route, int(answer[1]))
	if answer[0] == 0 {
		return ErrNetworkFull
	}
	return nil
}
