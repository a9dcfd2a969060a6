package stats

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram buckets (HDR-style): durations below 128 ns each have their own bucket; above, every
// power of two is cut into 64 buckets, so a bucket is at most 1/64 (1.6%) wide relative to its
// value. 2^63 ns is the largest duration, hence 57 powers of two above 2^6.
const (
	subBucketBits = 6
	subBuckets    = 1 << subBucketBits
	exactBuckets  = 2 * subBuckets
	bucketCount   = exactBuckets + (63-subBucketBits-1)*subBuckets
)

// Histogram counts durations from many goroutines at once without a lock, for percentiles of
// more samples than a sorted slice should hold (every keepalive of thousands of sessions).
type Histogram struct {
	counts [bucketCount]atomic.Uint64
}

// Record counts one duration; negative ones count as 0.
func (h *Histogram) Record(d time.Duration) { h.counts[bucketOf(max(d, 0))].Add(1) }

// Add counts every duration of o into h.
func (h *Histogram) Add(o *Histogram) {
	for i := range o.counts {
		if n := o.counts[i].Load(); n > 0 {
			h.counts[i].Add(n)
		}
	}
}

// Count is how many durations were recorded.
func (h *Histogram) Count() uint64 {
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
	}
	return n
}

// Percentile by the nearest-rank method, as Percentile does for a sorted slice: the middle of
// the bucket holding the smallest value with at least p percent at or below it; 0 when empty.
func (h *Histogram) Percentile(p float64) time.Duration {
	total := h.Count()
	if total == 0 {
		return 0
	}
	rank := uint64(max(math.Ceil(p/100*float64(total)), 1))
	var seen uint64
	for i := range h.counts {
		if seen += h.counts[i].Load(); seen >= rank {
			lo, hi := bucketBounds(i)
			return lo + (hi-lo)/2
		}
	}
	lo, hi := bucketBounds(bucketCount - 1)
	return lo + (hi-lo)/2
}

func bucketOf(d time.Duration) int {
	v := uint64(d)
	if v < exactBuckets {
		return int(v)
	}
	msb := bits.Len64(v) - 1 // at least subBucketBits+1
	shift := msb - subBucketBits
	return exactBuckets + (shift-1)*subBuckets + int(v>>shift) - subBuckets
}

// bucketBounds is the half-open range [lo, hi) of bucket i.
func bucketBounds(i int) (lo, hi time.Duration) {
	if i < exactBuckets {
		return time.Duration(i), time.Duration(i + 1)
	}
	shift := (i-exactBuckets)/subBuckets + 1
	sub := uint64((i-exactBuckets)%subBuckets + subBuckets)
	return time.Duration(sub << shift), time.Duration((sub + 1) << shift)
}
