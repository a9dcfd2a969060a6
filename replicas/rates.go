package replicas

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// rateFlushEvery is how often the events counted here go to Redis and the totals come back.
const rateFlushEvery = 100 * time.Millisecond

// maxRateNames bounds the names counted in one flush; past it new names are not shared (the
// relay's own buckets still meter them), as the relay's buckets go unmetered past their cap.
const maxRateNames = 1 << 14

// rateCounts are the events of each name (a network and what it did) in its current window:
// those not yet sent to Redis, and the replicas' total as the last flush learnt it.
type rateCounts struct {
	mu    sync.Mutex
	names map[string]*rateCount
}

type rateCount struct {
	window  time.Duration
	start   int64 // the window's number: unix time / window
	pending int64 // counted here since the last flush
	shared  int64 // the replicas' total at the last flush, this replica's included
}

func newRateCounts() rateCounts { return rateCounts{names: map[string]*rateCount{}} }

// Count counts one event of name in windows of window and says how many events of name the
// replicas counted together in the current window, as far as this replica knows: the total
// of the last flush (at most rateFlushEvery old, or this replica's own while Redis is away)
// and what was counted here since. It never waits on Redis.
func (s *Store) Count(name string, window time.Duration) int {
	r := &s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	start := time.Now().UnixNano() / int64(window)
	c := r.names[name]
	if c == nil || c.start != start || c.window != window {
		if c == nil && len(r.names) >= maxRateNames {
			return 0
		}
		c = &rateCount{window: window, start: start}
		r.names[name] = c
	}
	c.pending++
	return int(c.shared + c.pending)
}

// flushRates sends what was counted since the last flush (INCRBY and PEXPIRE, pipelined) and
// keeps the totals Redis answers; a failed flush keeps the counts here, and windows that have
// ended are forgotten.
func (s *Store) flushRates() {
	batch := s.takeRates()
	if len(batch) == 0 {
		return
	}
	err := s.call("count rates", func(ctx context.Context) error {
		_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := range batch {
				b := &batch[i]
				key := s.key("rate", b.name, strconv.FormatInt(b.start, 10))
				b.total = p.IncrBy(ctx, key, b.n)
				p.PExpire(ctx, key, 2*b.window)
			}
			return nil
		})
		return err
	})
	s.keepRates(batch, err == nil)
}

// rateBatch is one name's events of one window on their way to Redis.
type rateBatch struct {
	name   string
	window time.Duration
	start  int64
	n      int64
	total  *redis.IntCmd
}

// takeRates takes what was counted since the last flush and forgets the ended windows.
func (s *Store) takeRates() []rateBatch {
	r := &s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	t := time.Now().UnixNano()
	var batch []rateBatch
	for name, c := range r.names {
		if t/int64(c.window) != c.start {
			delete(r.names, name)
			continue
		}
		if c.pending > 0 {
			batch = append(batch, rateBatch{name: name, window: c.window, start: c.start, n: c.pending})
		}
	}
	return batch
}

// keepRates sets what a flush learnt: with Redis' totals the events sent leave pending; without
// them they stay pending, this replica's own count.
func (s *Store) keepRates(batch []rateBatch, sent bool) {
	r := &s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range batch {
		c := r.names[b.name]
		if !sent || c == nil || c.start != b.start {
			continue
		}
		c.pending -= b.n
		c.shared = b.total.Val()
	}
}
