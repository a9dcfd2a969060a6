package relay

import (
	"net/netip"
	"strconv"
	"time"
)

// rateBuckets is a token bucket per client address: each new connection takes a token, and a
// bucket refills at rate tokens per second up to burst. A full bucket is the same as none, so
// full buckets are dropped when the map has doubled since the last sweep (amortised O(1) per
// connection); what remains is only the addresses seen in the last burst/rate seconds. Past
// maxRateBuckets, new addresses go unmetered rather than refused: a spray from that many
// addresses is what the total limit is for, and refusing would lock out every new player.
type rateBuckets struct {
	rate      float64 // tokens per second
	burst     float64
	buckets   map[netip.Addr]*bucket
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

func newRateBuckets(rate float64, burst int) rateBuckets {
	return rateBuckets{rate: rate, burst: float64(burst), buckets: map[netip.Addr]*bucket{}, sweepSize: minSweepSize}
}

// take spends one of addr's tokens, and reports false when there is none. The caller holds
// the counter's lock.
func (r *rateBuckets) take(addr netip.Addr, now time.Time) bool {
	b := r.buckets[addr]
	if b == nil {
		if len(r.buckets) >= r.sweepSize && now.After(r.notBefore) {
			r.sweep(now)
		}
		if len(r.buckets) >= maxRateBuckets {
			return true
		}
		b = &bucket{tokens: r.burst, at: now}
		r.buckets[addr] = b
	}
	b.refill(now, r.rate, r.burst)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func (b *bucket) refill(now time.Time, rate, burst float64) {
	if elapsed := now.Sub(b.at).Seconds(); elapsed > 0 {
		b.tokens = min(burst, b.tokens+elapsed*rate)
		b.at = now
	}
}

// sweep drops the buckets that have refilled, and sets the next sweep at twice what is left.
func (r *rateBuckets) sweep(now time.Time) {
	for addr, b := range r.buckets {
		if b.refill(now, r.rate, r.burst); b.tokens >= r.burst {
			delete(r.buckets, addr)
		}
	}
	r.sweepSize = min(maxRateBuckets, max(minSweepSize, 2*len(r.buckets)))
	if len(r.buckets) >= maxRateBuckets {
		r.notBefore = now.Add(time.Second)
	}
}

func (r *rateBuckets) String() string {
	return strconv.FormatFloat(r.rate, 'g', -1, 64) + " new connections per second per address (burst " +
		strconv.FormatFloat(r.burst, 'g', -1, 64) + ")"
}
