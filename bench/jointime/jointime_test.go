package jointime

import (
	"bytes"
	"context"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/bench/traffic"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

func startBackend(t *testing.T) string {
	t.Helper()
	profile, err := traffic.ByName("echo", 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	be, err := backend.ListenWith("127.0.0.1:0", profile, zerolog.Nop(), backend.Options{Modern: modern.ServerConfig{Compression: 256}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		be.Close()
		if n := be.Failures(); n > 0 {
			t.Errorf("the backend refused %d sessions", n)
		}
	})
	return be.Addr()
}

func dialer(addr string, before time.Duration) Dial {
	return func(ctx context.Context) (net.Conn, error) {
		time.Sleep(before)
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
}

func TestOnceReachesLoginSuccess(t *testing.T) {
	addr := startBackend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, oneWrite := range []bool{false, true} {
		tm, err := Once(ctx, dialer(addr, 0), "Alex", oneWrite)
		if err != nil {
			t.Fatalf("one write %v: %v", oneWrite, err)
		}
		if tm.Connect <= 0 || tm.LoginSuccess < tm.Connect {
			t.Errorf("one write %v: timing %+v: want 0 < connect <= login success", oneWrite, tm)
		}
	}
}

func TestOnceReportsARefusedDial(t *testing.T) {
	if _, err := Once(context.Background(), dialer(testutil.ClosedPort(t), 0), "Alex", false); err == nil || !strings.Contains(err.Error(), "dial") {
		t.Errorf("err = %v, want a dial error", err)
	}
}

// TestRunPairsThePathsAndMeasuresTheirDifference runs two paths to the same backend, one of
// which waits 20 ms before its dial: each pair's difference must show it. The wait is in the
// dial, so no join of that path may come in under 20 ms. The difference itself can move
// either way on a loaded machine (a stalled direct join shrinks it, a stalled late one grows
// it), so for each cell one of a few runs must have its median within the limits.
func TestRunPairsThePathsAndMeasuresTheirDifference(t *testing.T) {
	addr := startBackend(t)
	rtts := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}
	onTime := map[time.Duration]bool{}
	tries := 0
	for tries < runTries && len(onTime) < len(rtts) {
		tries++
		for _, rtt := range pairedRunOnTime(t, addr, rtts, tries) {
			onTime[rtt] = true
		}
	}
	for _, rtt := range rtts {
		if !onTime[rtt] {
			t.Errorf("RTT %v: no run of %d had a median difference of 20 ms (5 less, 50 more)", rtt, tries)
		}
	}
}

// runTries is how many runs TestRunPairsThePathsAndMeasuresTheirDifference makes at most: a
// scheduler stall of a few hundred ms on a loaded 2-core machine hits one, not all of them.
const runTries = 5

// pairedRunOnTime makes one run over rtts of a direct path and one that waits 20 ms before its
// dial, fails the test on what load cannot explain, and returns the RTTs whose median
// difference is about 20 ms: 5 ms less and 50 ms more are allowed.
func pairedRunOnTime(t *testing.T, addr string, rtts []time.Duration, try int) (onTime []time.Duration) {
	t.Helper()
	const wait = 20 * time.Millisecond
	var cells []time.Duration
	var log bytes.Buffer
	cfg := Config{
		RTTs: rtts, SetRTT: func(d time.Duration) { cells = append(cells, d) },
		Paths:  []Path{{"direct", dialer(addr, 0)}, {"late", dialer(addr, wait)}},
		Rounds: 3, Joins: 2, Warmup: 1, Timeout: 5 * time.Second, Log: &log,
	}
	samples, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2*3*2*len(rtts) || len(cells) != len(rtts) {
		t.Fatalf("%d samples over %d cells, want %d over %d", len(samples), len(cells), 2*3*2*len(rtts), len(rtts))
	}
	if n := strings.Count(log.String(), "\nrtt="); n != len(samples) { // every join line follows a cell's or warmup's
		t.Fatalf("log has %d join lines, want %d:\n%s", n, len(samples), log.String())
	}
	for _, s := range samples {
		if s.Path == "late" && s.Connect < wait {
			t.Fatalf("a join of the late path connected after %v, want %v at least: %+v", s.Connect, wait, s)
		}
	}
	for _, c := range Summarize(samples, []string{"direct", "late"}, rtts).Cells {
		late := c.Paths[1]
		t.Logf("run %d, RTT %v: difference %+v ms", try, c.RTT, late.Diff)
		if late.Diff.N != 3 || c.Paths[0].Diff.N != 0 {
			t.Fatalf("RTT %v: %d pairs for the late path and %d for the first, want 3 and 0", c.RTT, late.Diff.N, c.Paths[0].Diff.N)
		}
		if late.Diff.Median >= 20-5 && late.Diff.Median <= 20+50 {
			onTime = append(onTime, c.RTT)
		}
	}
	return onTime
}

func TestSummarizeFitsRoundTripsAndFixedCost(t *testing.T) {
	var samples []Sample
	rtts := []time.Duration{20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond}
	for _, rtt := range rtts {
		for round := 1; round <= 4; round++ {
			// base: 2 round trips; other: 3 round trips and 1.5 ms more, one round 2 ms slower
			ls := 3*rtt + 1500*time.Microsecond
			if round == 2 {
				ls += 2 * time.Millisecond
			}
			samples = append(samples,
				Sample{RTT: rtt, Round: round, Path: "base", Timing: Timing{Connect: rtt, LoginSuccess: 2 * rtt}},
				Sample{RTT: rtt, Round: round, Path: "other", Timing: Timing{LoginSuccess: ls}})
		}
	}
	s := Summarize(samples, []string{"base", "other"}, rtts)
	if got := s.Cells[0].Paths[1].DiffRTTs; math.Abs(got.Median-(20+1.5)/20) > 1e-9 || got.N != 4 {
		t.Errorf("20 ms: difference in RTTs %+v, want median 1.075 over 4 pairs", got)
	}
	if got := s.Cells[2].Paths[0].InRTTs; math.Abs(got-2) > 1e-9 {
		t.Errorf("100 ms: base in RTTs = %v, want 2", got)
	}
	base, other := s.Fits[0], s.Fits[1]
	if math.Abs(base.RoundTrips-2) > 1e-9 || math.Abs(base.FixedMs) > 1e-9 {
		t.Errorf("base fit %+v, want 2 round trips and 0 ms", base)
	}
	if math.Abs(other.RoundTrips-3) > 1e-9 || math.Abs(other.FixedMs-2) > 1e-9 { // 1.5 + 2/4
		t.Errorf("other fit %+v, want 3 round trips and 2 ms", other)
	}
	var md bytes.Buffer
	s.Markdown(&md)
	for _, want := range []string{"| 20ms | other | 61.50 [61.50-63.50]", "| other | 3.000 | 2.000 |", "| 20ms | other − base | 1.07, 1.18, 1.07, 1.07 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
