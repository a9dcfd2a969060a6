package relay

import (
	"time"

	"github.com/moonbridge/moonbridge/internal/bufpool"
)

// In the Low profile the memory watch gives memory back to the system (bufpool.Trim, then
// debug.FreeOSMemory, a forced garbage collection that returns the free heap):
//   - after a burst: once at least trimBurst buffers were given back that the pools did not keep,
//     and no more were dropped since the last look (the burst is over);
//   - when idle: once per quiet period, after no buffer was taken for trimQuiet;
//
// and never twice within trimGap, so a busy server pays at most one forced collection per gap.
const (
	trimBurst = 32 // 2 MiB of 64 KiB relay buffers
	trimQuiet = 10 * time.Second
	trimGap   = 5 * time.Second
)

// trimmer decides when to trim from the pools' counts; the memory watch calls due on each tick.
type trimmer struct {
	seen         bufpool.Stats // the counts at the previous look
	droppedAt    uint64        // Dropped at the last trim
	quietSince   time.Time     // when a buffer was last taken (or the start)
	quietTrimmed bool          // this quiet period has had its trim
	lastTrim     time.Time
}

func newTrimmer(now time.Time) *trimmer { return &trimmer{quietSince: now} }

// due returns why to trim now ("burst" or "idle"), or "" for not now, and counts a trim it
// asks for as done.
func (t *trimmer) due(now time.Time, counts bufpool.Stats) string {
	if counts.Taken != t.seen.Taken {
		t.quietSince, t.quietTrimmed = now, false
	}
	burstOver := counts.Dropped == t.seen.Dropped
	t.seen = counts
	if !t.lastTrim.IsZero() && now.Sub(t.lastTrim) < trimGap {
		return ""
	}
	reason := ""
	switch {
	case burstOver && counts.Dropped-t.droppedAt >= trimBurst:
		reason = "burst"
	case !t.quietTrimmed && now.Sub(t.quietSince) >= trimQuiet:
		reason = "idle"
	default:
		return ""
	}
	t.lastTrim, t.droppedAt, t.quietTrimmed = now, counts.Dropped, true
	return reason
}
