package relay

import (
	"time"
)

// shedLinePeriod bounds the guard's shedding lines: one per period, with the count since the
// last one (each shed connection is counted in moonbridge_connections_refused_total too).
const shedLinePeriod = 10 * time.Second

// shedForMemory sheds the stalled handshakes (in progress for stalledAfter or longer) that hold
// what used is over the accept mark, counted at handshakeCost each, and says how many it shed.
func (w *memoryWatch) shedForMemory(used uint64) int {
	over := used - min(used, w.cfg.Limit/100*acceptAt)
	shed := w.handshakes.shedStalled(int((over+handshakeCost-1)/handshakeCost), time.Now())
	if shed == 0 {
		return 0
	}
	w.shedSince.Add(int64(shed))
	if _, ok := w.shedLines.allow("shed", time.Now()); ok {
		w.log.Warn().Uint64("used_mib", used>>20).Uint64("limit_mib", w.cfg.Limit>>20).
			Int64("shed", w.shedSince.Swap(0)).Int("in_progress", w.handshakes.count()).
			Msg("memory near the limit: stalled handshakes shed before logins are refused")
	}
	return shed
}

// floodHandshakes handshakes in progress at once (about 20 MiB) are a flood whatever the limit;
// under a small limit a quarter of the handshakes' budget is.
const floodHandshakes = 1000

// giveBackAfterFlood gives memory back to the system once a flood of handshakes is over: when
// the handshakes in progress have reached floodHandshakes (or a quarter of their budget, if
// fewer) and fallen to a tenth of that peak, at most once per reclaimEvery. Not at every sample: giving back runs a full
// collection and hands back every free page, which the next burst takes again; between floods
// Go's scavenger returns free heap by itself, slowly (about 1% of a CPU, keeping some 10% over
// the heap goal), and fast only near Go's memory limit (goLimitAt of memory.limit).
func (w *memoryWatch) giveBackAfterFlood(now time.Time) {
	peak, inProgress := w.handshakes.takePeak()
	w.floodPeak = max(w.floodPeak, peak)
	flood := max(min(w.handshakes.budget/4, floodHandshakes), 1)
	if w.floodPeak < flood || inProgress > w.floodPeak/10 || !w.reclaimDue(now) {
		return
	}
	before, _ := w.cfg.Usage()
	w.reclaim()
	after, _ := w.cfg.Usage()
	w.log.Info().Int("peak_handshakes", w.floodPeak).Int("in_progress", inProgress).
		Uint64("used_before_mib", before>>20).Uint64("used_after_mib", after>>20).
		Msg("handshake flood over: memory given back to the system")
	w.floodPeak = 0
}

// reclaimBeforeRefusing gives memory back, when reclaimDue, before logins are refused for used:
// after a burst of handshakes too young to be shed, much of what the process holds is free
// memory not yet returned. It returns the memory in use then (used when it did not).
func (w *memoryWatch) reclaimBeforeRefusing(used uint64) uint64 {
	if !w.reclaimDue(time.Now()) {
		return used
	}
	w.reclaim()
	if again, err := w.cfg.Usage(); err == nil {
		return again
	}
	return used
}

// reclaimDue says whether memory may be given back at now (reclaimEvery since the last time)
// and, when it may, counts now as the last time: one caller gets it.
func (w *memoryWatch) reclaimDue(now time.Time) bool {
	last := w.lastReclaim.Load()
	return now.Sub(time.Unix(0, last)) >= reclaimEvery && w.lastReclaim.CompareAndSwap(last, now.UnixNano())
}
