// Package stats summarises repeated measurements the way bench/results/ records report them:
// the median with the [min-max] range, and latency percentiles.
package stats

import (
	"math"
	"slices"
	"time"
)

// Range is a median with the smallest and largest value.
type Range struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

// Summarize returns the range of vs; no values give the zero Range (N 0), which renders as
// "not measured".
func Summarize(vs []float64) Range {
	if len(vs) == 0 {
		return Range{}
	}
	sorted := slices.Sorted(slices.Values(vs))
	return Range{Median: Median(sorted), Min: sorted[0], Max: sorted[len(sorted)-1], N: len(sorted)}
}

// Median of sorted values: the middle one, or the mean of the two middle ones.
func Median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Percentile of sorted durations by the nearest-rank method: the smallest value with at least
// p percent of the values at or below it.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
