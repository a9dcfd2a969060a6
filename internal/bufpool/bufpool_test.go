package bufpool

import "testing"

// useProfile switches the pools for one test and back to Throughput after it.
func useProfile(t *testing.T, p Profile) {
	SetProfile(p)
	t.Cleanup(func() { SetProfile(Throughput) })
}

// burst takes n buffers at once and gives them all back, as n sessions reading a burst at the
// same moment do.
func burst(p *Pool, n int) {
	held := make([]*[]byte, n)
	for i := range held {
		held[i] = p.Get()
	}
	for _, b := range held {
		p.Put(b)
	}
}

func TestLowProfileGivesBuffersBackAfterABurst(t *testing.T) {
	useProfile(t, Low)
	p := New(1024)
	burst(p, 100)
	got := p.Stats()
	want := Stats{Out: 0, Kept: LowKeep, Taken: 100, Dropped: 100 - LowKeep}
	if got != want {
		t.Fatalf("after a burst of 100: %+v, want %+v", got, want)
	}
	// The kept buffers serve the next reads without allocating more.
	b := p.Get()
	if len(*b) != 1024 {
		t.Errorf("buffer of %d bytes, want 1024", len(*b))
	}
	p.Put(b)
	if s := p.Stats(); s.Kept != LowKeep || s.Dropped != 100-LowKeep {
		t.Errorf("a Get and Put after the burst changed the counts: %+v", s)
	}
	Trim()
	if s := p.Stats(); s.Kept != 0 || s.Out != 0 {
		t.Errorf("after Trim: %+v, want nothing kept or out", s)
	}
}

func TestThroughputProfileKeepsNoFreeList(t *testing.T) {
	useProfile(t, Throughput)
	p := New(1024)
	burst(p, 100)
	if s := p.Stats(); s.Kept != 0 || s.Dropped != 0 || s.Out != 0 || s.Taken != 100 {
		t.Errorf("throughput after a burst: %+v, want only Taken counted (sync.Pool keeps the rest)", s)
	}
}

func TestSwitchingToThroughputEmptiesTheLowLists(t *testing.T) {
	useProfile(t, Low)
	p := New(64)
	burst(p, 3)
	if s := p.Stats(); s.Kept != 3 {
		t.Fatalf("low kept %d, want 3", s.Kept)
	}
	SetProfile(Throughput)
	if s := p.Stats(); s.Kept != 0 {
		t.Errorf("after switching to throughput %d buffers are still kept", s.Kept)
	}
}

func TestTotalsSumEveryPool(t *testing.T) {
	useProfile(t, Low)
	before := Totals()
	a, b := New(16), New(32)
	held := a.Get()
	burst(b, LowKeep+2)
	got := Totals()
	if got.Out-before.Out != 1 || got.Taken-before.Taken != LowKeep+3 || got.Dropped-before.Dropped != 2 {
		t.Errorf("totals moved by out %d taken %d dropped %d, want 1, %d, 2",
			got.Out-before.Out, got.Taken-before.Taken, got.Dropped-before.Dropped, LowKeep+3)
	}
	a.Put(held)
}

func TestParseProfile(t *testing.T) {
	for _, p := range []Profile{Low, Throughput} {
		if got, err := ParseProfile(p.String()); err != nil || got != p {
			t.Errorf("ParseProfile(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParseProfile("fast"); err == nil {
		t.Error("ParseProfile(fast) accepted")
	}
}

// In steady state (a buffer taken and given back per read) the Low profile allocates nothing:
// the free list serves every Get.
func TestLowProfileSteadyStateZeroAllocs(t *testing.T) {
	useProfile(t, Low)
	p := New(4096)
	p.Put(p.Get())
	if n := testing.AllocsPerRun(1000, func() { p.Put(p.Get()) }); n != 0 {
		t.Errorf("a Get and Put allocate %.1f times, want 0", n)
	}
}
