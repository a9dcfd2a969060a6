package relay

import (
	"strconv"
	"time"
)

// rateBuckets is a token bucket per key (a client address, a client network): each event (a
// new connection, a status ping, a login) takes a token, and a bucket refills at rate tokens
// per second up to burst. A full bucket is the same as none, so full buckets are dropped when
// the map has doubled since the last sweep (amortised O(1) per event); what remains is only
// the keys seen in the last burst/rate seconds. Past maxRateBuckets, new keys go unmetered
// rather than refused: a spray from that many addresses is what the total limit is for, and
// refusing would lock out every new player.
type rateBuckets[K comparable] struct {
	rate      float64 // tokens per second
	burst     float64
	what      string // what a token is, per what key, for the refusal: "new connections per second per address"
	buckets   map[K]*bucket
	sweepSize int       // sweep when the map reaches this size
	notBefore time.Time // at the cap, sweep at most once a second
}

type bucket struct {
	tokens float64
	at     time.Time // when tokens was last brought up to date
}

const (
	maxRateBuckets = 1 << 16
	minSweepSize   = 1024
)

func newRateBuckets[K comparable](what string, rate float64, burst int) rateBuckets[K] {
	return rateBuckets[K]{rate: rate, burst: float64(burst), what: what, buckets: map[K]*bucket{}, sweepSize: minSweepSize}
}

// set changes the rate and the burst; each bucket takes them from its next refill (a bucket
// over the new burst is cut down to it).
func (r *rateBuckets[K]) set(rate, burst float64) {
	r.rate, r.burst = rate, burst
}

// take spends one of key's tokens, and reports false when there is none. The caller holds
// the counter's lock.
func (r *rateBuckets[K]) take(key K, now time.Time) bool {
	b := r.buckets[key]
	if b == nil {
		if len(r.buckets) >= r.sweepSize && now.After(r.notBefore) {
			r.sweep(now)
		}
		if len(r.buckets) >= maxRateBuckets {
			return true
		}
		b = &bucket{tokens: r.burst, at: now}
		r.buckets[key] = b
	}
	b.refill(now, r.rate, r.burst)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// giveBack returns the token take spent for key, when a later check refused the event after
// all (a refused event spends nothing).
func (r *rateBuckets[K]) giveBack(key K) {
	if b := r.buckets[key]; b != nil {
		b.tokens = min(r.burst, b.tokens+1)
	}
}

func (b *bucket) refill(now time.Time, rate, burst float64) {
	if elapsed := now.Sub(b.at).Seconds(); elapsed > 0 {
		b.tokens += elapsed * rate
		b.at = now
	}
	b.tokens = min(burst, b.tokens)
}

// sweep drops the buckets that have refilled, and sets the next sweep at twice what is left.
func (r *rateBuckets[K]) sweep(now time.Time) {
	for key, b := range r.buckets {
		if b.refill(now, r.rate, r.burst); b.tokens >= r.burst {
			delete(r.buckets, key)
		}
	}
	r.sweepSize = min(maxRateBuckets, max(minSweepSize, 2*len(r.buckets)))
	if len(r.buckets) >= maxRateBuckets {
		r.notBefore = now.Add(time.Second)
	}
}

func (r *rateBuckets[K]) String() string {
	return strconv.FormatFloat(r.rate, 'g', -1, 64) + " " + r.what + " (burst " +
		strconv.FormatFloat(r.burst, 'g', -1, 64) + ")"
}
