package replicas

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// health is whether Redis answers: one log line when it stops answering and one when it is
// back, and a count of the calls that failed. Only a call started after the last change can
// change it again: an answer that was on its way when Redis stopped, or a failure on a
// connection from before Redis came back, says nothing of now.
type health struct {
	log     zerolog.Logger
	away    atomic.Bool
	errors  atomic.Uint64
	mu      sync.Mutex // orders the away and back lines
	changed time.Time  // when away last changed, under mu
}

// failed counts a failed call started at started and, when Redis was thought up, logs that it
// is away.
func (h *health) failed(started time.Time, op string, err error) {
	h.errors.Add(1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if !started.After(h.changed) || h.away.Swap(true) {
		return
	}
	h.changed = time.Now()
	h.log.Warn().Err(err).Str("op", op).
		Msg("Redis is away or slow: going on with this replica's own counts, blocks and rates until it answers again")
}

// succeeded notes a call started at started that worked, and says whether Redis has just come
// back.
func (h *health) succeeded(started time.Time) (back bool) {
	if !h.away.Load() {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !started.After(h.changed) || !h.away.Swap(false) {
		return false
	}
	h.changed = time.Now()
	h.log.Info().Msg("Redis answers again: sharing counts, blocks and rates with the other replicas")
	return true
}

// Away says whether the last call to Redis failed.
func (s *Store) Away() bool { return s.health.away.Load() }
