package loop

import (
	"time"
)

// Pack's thresholds, on a loop's busy share of a balancer period (Stats.Busy). A loop is full
// at spillAt; a loop with less than roomBelow may take sessions from a full one; the last busy
// loop's sessions go onto another when the two together stay under mergeBelow. The gap between
// spillAt and mergeBelow keeps sessions from going back and forth.
const (
	spillAt    = 0.90
	roomBelow  = 0.50
	mergeBelow = 0.60
	// steady is how many periods in a row a condition must hold before sessions move, and how
	// many periods the balancer waits after a move before it reads the loads again.
	steady = 2
)

// pick is the loop a new session goes to.
func (e *Engine) pick() *loop {
	if e.cfg.Placement == Spread {
		return e.fewest()
	}
	for _, l := range e.loops {
		if float64(l.load.Load())/1000 < spillAt {
			return l
		}
	}
	return e.lightest()
}

func (e *Engine) fewest() *loop {
	best := e.loops[0]
	for _, l := range e.loops[1:] {
		if l.count.Load() < best.count.Load() {
			best = l
		}
	}
	return best
}

func (e *Engine) lightest() *loop {
	best := e.loops[0]
	for _, l := range e.loops[1:] {
		if l.load.Load() < best.load.Load() {
			best = l
		}
	}
	return best
}

// balance reads every loop's busy time each Config.Balance, publishes the loads and has a full
// loop shed sessions to one with room, or the last busy loop give all of its sessions to a
// light one, until Close.
func (e *Engine) balance() {
	tick := time.NewTicker(e.cfg.Balance)
	defer tick.Stop()
	var p planner
	loads := make([]float64, len(e.loops))
	counts := make([]int64, len(e.loops))
	last := time.Now()
	for {
		select {
		case <-e.done:
			return
		case now := <-tick.C:
			e.period.Add(1)
			for i, l := range e.loops {
				loads[i] = min(float64(l.busy.Swap(0))/float64(now.Sub(last)), 1)
				counts[i] = l.count.Load()
				l.load.Store(uint32(loads[i] * 1000))
			}
			last = now
			if o, ok := p.plan(loads, counts); ok {
				e.loops[o.from].post(command{shed: &shedOrder{to: e.loops[o.to], share: o.share}})
			}
		}
	}
}

// planner decides the moves from a period's loads; it remembers how long each condition held.
type planner struct {
	full, light, wait int
}

// moveOrder asks loop from to give loop to the share of its sessions' weight (1: all of them).
type moveOrder struct {
	from, to int
	share    float64
}

// plan returns the move that loads and counts (sessions per loop) call for, if any: from the
// busiest loop, full for steady periods and holding two sessions or more, half the difference
// of its load and that of the first loop with room; else, when the last loop with sessions
// and the lightest loop before it have been light together for steady periods, all of it.
func (p *planner) plan(loads []float64, counts []int64) (moveOrder, bool) {
	if p.wait > 0 {
		p.wait--
		return moveOrder{}, false
	}
	o, ok := p.spill(loads, counts)
	if !ok {
		o, ok = p.merge(loads, counts)
	}
	if ok {
		p.full, p.light, p.wait = 0, 0, steady
	}
	return o, ok
}

func (p *planner) spill(loads []float64, counts []int64) (moveOrder, bool) {
	hot := 0
	for i := range loads {
		if loads[i] > loads[hot] {
			hot = i
		}
	}
	if loads[hot] < spillAt || counts[hot] < 2 {
		p.full = 0
		return moveOrder{}, false
	}
	if p.full++; p.full < steady {
		return moveOrder{}, false
	}
	for to := range loads {
		if to != hot && loads[to] < roomBelow {
			return moveOrder{from: hot, to: to, share: (loads[hot] - loads[to]) / (2 * loads[hot])}, true
		}
	}
	return moveOrder{}, false
}

func (p *planner) merge(loads []float64, counts []int64) (moveOrder, bool) {
	last := len(counts) - 1
	for last > 0 && counts[last] == 0 {
		last--
	}
	if last == 0 {
		p.light = 0
		return moveOrder{}, false
	}
	to := 0
	for i := 1; i < last; i++ {
		if loads[i] < loads[to] {
			to = i
		}
	}
	if loads[to]+loads[last] >= mergeBelow {
		p.light = 0
		return moveOrder{}, false
	}
	if p.light++; p.light < steady {
		return moveOrder{}, false
	}
	return moveOrder{from: last, to: to, share: 1}, true
}
