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
// connection from before Redis came back, says nothing of now. Nor does a failure within
// quietFor of an answer: one call ran slow, or go-redis refused it a connection with its last
// dial error (once it has failed to dial as often as its pool is large, go-redis tries a new
// connection only once every redialEvery, and meanwhile answers the calls that need one with
// that error, also after Redis came back, while the calls on connections it has are answered).
type health struct {
	log      zerolog.Logger
	quietFor time.Duration // how long after an answer a failure is one call's alone
	epoch    time.Time     // answered counts from it, on the monotonic clock
	answered atomic.Int64  // when a call last worked: nanoseconds since epoch
	away     atomic.Bool
	errors   atomic.Uint64
	mu       sync.Mutex // orders the away and back lines
	changed  time.Time  // when away last changed, under mu
}

// redialEvery is how often go-redis tries a new connection once it has stopped dialling for
// each call (its pool's tryDial).
const redialEvery = time.Second

// init sets h up to log on log and to take a failure within a call's bound and a redial of an
// answer, or of the start, for one call's: the first calls run while the replica starts, and a
// Redis that never answers is away once that time has passed.
func (h *health) init(log zerolog.Logger, bound time.Duration) {
	h.log, h.quietFor, h.epoch = log, bound+redialEvery, time.Now()
	h.answered.Store(0) // the start, as if answered
}

// failed counts a failed call started at started and, when Redis was thought up and has not
// answered for quietFor, logs that it is away.
func (h *health) failed(started time.Time, op string, err error) {
	h.errors.Add(1)
	if time.Since(h.epoch)-time.Duration(h.answered.Load()) < h.quietFor {
		return
	}
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
	h.answered.Store(int64(time.Since(h.epoch)))
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
