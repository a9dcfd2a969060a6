package dashboard

import (
	"context"
	"time"

	"github.com/moonbridge/moonbridge/internal/history"
)

// Sampling is how the graphs' history is kept: a sample every Every, the last Points of them.
type Sampling struct {
	Every  time.Duration
	Points int
}

// DefaultSampling keeps the last hour at one sample per 10 s: 360 samples of a few words each.
func DefaultSampling() Sampling { return Sampling{Every: 10 * time.Second, Points: 360} }

// Sample is one point of the graphs: the players at At, and the bytes a second relayed each
// way since the sample before.
type Sample struct {
	At            time.Time
	Players       int
	UpPerSecond   float64
	DownPerSecond float64
}

// sampler takes the samples from the relay's counts, every Every, into a bounded ring.
type sampler struct {
	src     Source
	every   time.Duration
	samples *history.Ring[Sample]
}

func newSampler(src Source, s Sampling) *sampler {
	return &sampler{src: src, every: s.Every, samples: history.NewRing[Sample](s.Points)}
}

// run samples until ctx ends. The first reading is only the base of the first sample's rates.
func (s *sampler) run(ctx context.Context) {
	ticker := time.NewTicker(s.every)
	defer ticker.Stop()
	last, lastAt := s.src.Overview(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-ticker.C:
			o := s.src.Overview()
			secs := now.Sub(lastAt).Seconds()
			s.samples.Add(Sample{At: now, Players: o.Players,
				UpPerSecond:   float64(o.RelayedUp-last.RelayedUp) / secs,
				DownPerSecond: float64(o.RelayedDown-last.RelayedDown) / secs})
			last, lastAt = o, now
		}
	}
}
