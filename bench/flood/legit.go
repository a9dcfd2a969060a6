package flood

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/stats"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// legitLoginTimeout bounds one legitimate login (the 2.1 MB login burst included).
const legitLoginTimeout = 30 * time.Second

// Group is a number of legitimate players over one way in.
type Group struct {
	Name   string // tcp, ws, wss or direct
	Dialer client.Dialer
	N      int
	Direct bool // straight to the backend: the round trips the proxy's are compared with
}

// Players are the legitimate players: each logs in, then plays the paced profile until the
// run ends, every byte checked (a lost or changed byte ends the session with an error). The
// keepalive round trips fall into the current window.
type Players struct {
	paced     *traffic.Paced
	cur       atomic.Pointer[roundTrips]
	started   atomic.Int64 // logged in through the proxy
	broken    atomic.Int64 // proxy sessions that ended before the run did
	corrupted atomic.Int64 // of those, ended by a byte that differed from the profile's
	mu        sync.Mutex
	firstErr  string
	wg        sync.WaitGroup
}

// roundTrips are one window's keepalive round trips, and how late the players' and the fake
// backend's scheduled writes began.
type roundTrips struct{ proxy, direct, late stats.Histogram }

// NewPlayers has no player yet; its Late can be the fake backend's hook before they log in.
func NewPlayers(paced *traffic.Paced) *Players {
	p := &Players{paced: paced}
	p.cur.Store(&roundTrips{})
	return p
}

// Start logs every group in (concurrency logins at once) and leaves them playing until
// ctx ends; Wait then returns once they stopped. A login that fails is an error: the run
// would measure fewer players than it says.
func (p *Players) Start(ctx context.Context, groups []Group, concurrency int) error {
	slots := make(chan struct{}, max(concurrency, 1))
	var logins sync.WaitGroup
	var failed atomic.Pointer[error]
	for _, g := range groups {
		for i := range g.N {
			slots <- struct{}{}
			logins.Go(func() {
				defer func() { <-slots }()
				if err := p.join(ctx, g, fmt.Sprintf("%s%04d", g.Name, i)); err != nil {
					failed.CompareAndSwap(nil, &err)
				}
			})
		}
	}
	logins.Wait()
	if err := failed.Load(); err != nil {
		return fmt.Errorf("flood: a legitimate player did not log in: %w", *err)
	}
	return nil
}

func (p *Players) join(ctx context.Context, g Group, name string) error {
	lctx, cancel := context.WithTimeout(ctx, legitLoginTimeout)
	defer cancel()
	s, _, err := client.Login(lctx, g.Dialer, traffic.Modded(), name, false)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if !g.Direct {
		p.started.Add(1)
	}
	p.wg.Go(func() {
		defer s.Close()
		err := s.Pace(ctx, p.paced, p.rtt(g.Direct), p.Late)
		if err == nil || ctx.Err() != nil || g.Direct {
			return
		}
		p.broken.Add(1)
		if errors.As(err, new(*client.ValidationError)) {
			p.corrupted.Add(1)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.firstErr == "" {
			p.firstErr = name + ": " + err.Error()
		}
	})
	return nil
}

func (p *Players) rtt(direct bool) func(time.Duration) {
	if direct {
		return func(d time.Duration) { p.cur.Load().direct.Record(d) }
	}
	return func(d time.Duration) { p.cur.Load().proxy.Record(d) }
}

// Late records how late a scheduled write began; the fake backend gets it as its hook.
func (p *Players) Late(d time.Duration) { p.cur.Load().late.Record(d) }

// Window ends the current window of round trips and starts the next.
func (p *Players) Window() *roundTrips { return p.cur.Swap(&roundTrips{}) }

// Proxy is the window's round trips through the proxy (its largest, Percentile(100), is the
// longest pause of any player's stream in the window, within the histogram's 1.6%).
func (r *roundTrips) Proxy() *stats.Histogram { return &r.proxy }

// Health is the proxy sessions so far: logged in, broken, broken by a changed byte.
type Health struct{ Started, Broken, Corrupted int64 }

func (p *Players) Health() Health {
	return Health{p.started.Load(), p.broken.Load(), p.corrupted.Load()}
}

// FirstError is the first broken session's error.
func (p *Players) FirstError() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.firstErr
}

// Wait returns when every player stopped (after ctx ended).
func (p *Players) Wait() { p.wg.Wait() }
