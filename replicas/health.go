package replicas

import (
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// health is whether Redis answers: one log line when it stops answering and one when it is
// back, and a count of the calls that failed.
type health struct {
	log    zerolog.Logger
	away   atomic.Bool
	errors atomic.Uint64
	mu     sync.Mutex // orders the away and back lines
}

// failed counts a failed call and, when Redis was thought up, logs that it is away.
func (h *health) failed(op string, err error) {
	h.errors.Add(1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.away.Swap(true) {
		return
	}
	h.log.Warn().Err(err).Str("op", op).
		Msg("Redis is away or slow: going on with this replica's own counts, blocks and rates until it answers again")
}

// succeeded notes a call that worked and says whether Redis has just come back.
func (h *health) succeeded() (back bool) {
	if !h.away.Load() {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.away.Swap(false) {
		return false
	}
	h.log.Info().Msg("Redis answers again: sharing counts, blocks and rates with the other replicas")
	return true
}

// Away says whether the last call to Redis failed.
func (s *Store) Away() bool { return s.health.away.Load() }
