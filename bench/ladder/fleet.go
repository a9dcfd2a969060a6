package ladder

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// loginTimeout bounds one login (dial, handshake, 2.1 MB burst): a relay that stops answering
// makes refused logins, not a ladder that never ends.
const loginTimeout = 30 * time.Second

// fleet is every player of a scenario: each logs in, then paces until the scenario ends.
type fleet struct {
	ctx   context.Context // the scenario's: players stop when it ends
	rec   *Recorder
	paced *traffic.Paced
	wg    sync.WaitGroup
}

// joinPlan says how a batch of players logs in.
type joinPlan struct {
	dialer      client.Dialer
	direct      bool   // straight to the backend (the comparison players)
	prefix      string // of the player names; with the index, unique per scenario
	first, n    int
	rate        float64 // logins started per second; 0: as fast as concurrency allows
	concurrency int
}

// join logs the batch in and starts each player's pacing; it returns, once every login
// ended, how long each successful one took from dial to the last byte of the login burst.
func (f *fleet) join(ctx context.Context, p joinPlan) []time.Duration {
	var mu sync.Mutex
	var joins []time.Duration
	slots := make(chan struct{}, max(p.concurrency, 1))
	var logins sync.WaitGroup
	start := time.Now()
	for i := range p.n {
		if p.rate > 0 && !sleepUntil(ctx, start.Add(time.Duration(float64(i)/p.rate*float64(time.Second)))) {
			break
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		logins.Go(func() {
			defer func() { <-slots }()
			if d, ok := f.player(p, fmt.Sprintf("%s%05d", p.prefix, p.first+i)); ok {
				mu.Lock()
				joins = append(joins, d)
				mu.Unlock()
			}
		})
	}
	logins.Wait()
	return slices.Sorted(slices.Values(joins))
}

// player logs one player in and, if that worked, leaves it pacing in the background.
func (f *fleet) player(p joinPlan, name string) (time.Duration, bool) {
	ctx, cancel := context.WithTimeout(f.ctx, loginTimeout)
	defer cancel()
	t0 := time.Now()
	s, _, err := client.Login(ctx, p.dialer, traffic.Modded(), name, false)
	took := time.Since(t0)
	switch {
	case f.ctx.Err() != nil:
		return 0, false // the scenario ended
	case errors.As(err, new(*client.ConnectError)):
		f.rec.fail(&f.rec.connectFailed, "connect", err)
		return 0, false
	case err != nil:
		f.rec.fail(&f.rec.refused, "login", err)
		return 0, false
	}
	f.wg.Go(func() {
		defer s.Close()
		if err := s.Pace(f.ctx, f.paced, f.rec.rtt(p.direct), f.rec.Late); err != nil && f.ctx.Err() == nil {
			f.rec.fail(&f.rec.closed, "session", err)
		}
	})
	return took, true
}

// sleepUntil waits for t; false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
