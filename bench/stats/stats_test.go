package stats

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	cases := []struct {
		in   []float64
		want Range
	}{
		{[]float64{3, 1, 2}, Range{Median: 2, Min: 1, Max: 3, N: 3}},
		{[]float64{4, 1, 3, 2}, Range{Median: 2.5, Min: 1, Max: 4, N: 4}},
		{[]float64{7}, Range{Median: 7, Min: 7, Max: 7, N: 1}},
		{nil, Range{}},
	}
	for _, c := range cases {
		if got := Summarize(c.in); got != c.want {
			t.Errorf("Summarize(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestSummarizeLeavesInputOrder(t *testing.T) {
	in := []float64{3, 1, 2}
	Summarize(in)
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("input reordered: %v", in)
	}
}

func TestPercentileNearestRank(t *testing.T) {
	sorted := make([]time.Duration, 100)
	for i := range sorted {
		sorted[i] = time.Duration(i + 1) // 1..100
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50}, {95, 95}, {99, 99}, {100, 100}, {0, 1}, {0.5, 1}} {
		if got := Percentile(sorted, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := Percentile([]time.Duration{5, 9}, 50); got != 5 {
		t.Errorf("p50 of two = %v, want the lower", got)
	}
	if got := Percentile(nil, 99); got != 0 {
		t.Errorf("p99 of none = %v", got)
	}
}
