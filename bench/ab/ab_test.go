package ab

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/suite"
)

func TestOrderAlternatesTwoVariants(t *testing.T) {
	want := [][]int{{0, 1}, {1, 0}, {0, 1}, {1, 0}}
	for p, w := range want {
		if got := Order(2, p); !slices.Equal(got, w) {
			t.Errorf("pair %d: %v, want %v", p, got, w)
		}
	}
}

func TestOrderRotatesThreeVariants(t *testing.T) {
	first := map[int]bool{}
	for p := range 3 {
		o := Order(3, p)
		first[o[0]] = true
		if sorted := slices.Sorted(slices.Values(o)); !slices.Equal(sorted, []int{0, 1, 2}) {
			t.Errorf("pair %d runs %v, not each variant once", p, o)
		}
	}
	if len(first) != 3 {
		t.Errorf("starting variants over three pairs: %v, want all three", first)
	}
}

func TestRunFollowsOrderAndComparePairs(t *testing.T) {
	variants := []Variant{{Name: "base"}, {Name: "cand"}}
	var ran []string
	cpu := map[string]float64{"base": 1000, "cand": 800}
	run := func(_ context.Context, v Variant) ([]suite.PhaseReport, error) {
		ran = append(ran, v.Name)
		cpu[v.Name] += 100 // drift: later runs cost more, as on a host whose load grows
		return []suite.PhaseReport{{Repeat: 1, Path: suite.PathProxy, Metrics: map[string]float64{phase.CPUNsPerFrame: cpu[v.Name]}}}, nil
	}
	results, err := Run(context.Background(), variants, 2, run, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"base", "cand", "cand", "base"}; !slices.Equal(ran, want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
	c := Compare(variants, results)
	if got := c.Ratios[1][phase.CPUNsPerFrame]; !slices.Equal(got, []float64{900.0 / 1100, 1000.0 / 1200}) {
		t.Errorf("pair ratios %v", got)
	}
	if r := c.Summary[0][phase.CPUNsPerFrame]; r.Min != 1100 || r.Max != 1200 || r.N != 2 {
		t.Errorf("base summary %+v", r)
	}
}

func TestParseVariant(t *testing.T) {
	v, err := ParseVariant("haproxy=--target 127.0.0.1:25580 --target-pid 7")
	if err != nil || v.Name != "haproxy" || !slices.Equal(v.Args, []string{"--target", "127.0.0.1:25580", "--target-pid", "7"}) {
		t.Errorf("got %+v, %v", v, err)
	}
	for _, bad := range []string{"noequals", "=--target x"} {
		if _, err := ParseVariant(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
