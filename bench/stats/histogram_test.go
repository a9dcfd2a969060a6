package stats

import (
	"slices"
	"testing"
	"time"
)

func TestHistogramBucketsCoverEveryValue(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 127, 128, 129, 255, 256, 1000, time.Millisecond, 5 * time.Millisecond, time.Hour, 1<<63 - 1} {
		lo, hi := bucketBounds(bucketOf(d))
		if d < lo || (d >= hi && hi > 0) {
			t.Errorf("%d ns lands in [%d, %d)", d, lo, hi)
		}
		if d >= exactBuckets && float64(hi-lo) > float64(d)/subBuckets {
			t.Errorf("%d ns: bucket %d wide, more than 1/%d", d, hi-lo, subBuckets)
		}
	}
}

func TestHistogramPercentileMatchesSorted(t *testing.T) {
	var h Histogram
	var all []time.Duration
	for i := range 1000 {
		d := time.Duration(i*i) * time.Microsecond / 10
		h.Record(d)
		all = append(all, d)
	}
	slices.Sort(all)
	for _, p := range []float64{1, 50, 99, 100} {
		got, want := h.Percentile(p), Percentile(all, p)
		if diff := got - want; diff < -want/subBuckets || diff > want/subBuckets {
			t.Errorf("p%v = %v, sorted slice says %v", p, got, want)
		}
	}
	var empty Histogram
	if empty.Percentile(99) != 0 || empty.Count() != 0 {
		t.Error("empty histogram has a percentile")
	}
}

func TestHistogramAdd(t *testing.T) {
	var a, b Histogram
	a.Record(time.Millisecond)
	b.Record(3 * time.Millisecond)
	b.Record(-time.Second) // a clock step: counted as 0
	a.Add(&b)
	if a.Count() != 3 || a.Percentile(100) < 2*time.Millisecond || a.Percentile(1) != 0 {
		t.Errorf("merged: count %d, p100 %v, p1 %v", a.Count(), a.Percentile(100), a.Percentile(1))
	}
}
