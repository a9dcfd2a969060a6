package ladder

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// window is what one interval recorded: keepalive round trips per path, and how late the
// generator's and the backend's scheduled writes were.
type window struct {
	proxy, direct, late stats.Histogram
}

// Recorder collects what every player and the fake backend measure, from any goroutine. The
// step swaps in a fresh window at each interval, so samples fall into the interval they ended
// in.
type Recorder struct {
	cur                            atomic.Pointer[window]
	closed, refused, connectFailed atomic.Int64
	mu                             sync.Mutex
	firstErr                       string // the first failure of any kind, for the report
}

// NewRecorder is a recorder with an empty window.
func NewRecorder() *Recorder {
	r := &Recorder{}
	r.cur.Store(&window{})
	return r
}

// Late records how late a scheduled write began; the fake backend gets it as its hook.
func (r *Recorder) Late(d time.Duration) { r.cur.Load().late.Record(d) }

func (r *Recorder) rtt(direct bool) func(time.Duration) {
	if direct {
		return func(d time.Duration) { r.cur.Load().direct.Record(d) }
	}
	return func(d time.Duration) { r.cur.Load().proxy.Record(d) }
}

// rotate starts a new window and returns the one that ends.
func (r *Recorder) rotate() *window { return r.cur.Swap(&window{}) }

// fail counts a session failure of one kind (closed, refused, connect failed).
func (r *Recorder) fail(n *atomic.Int64, kind string, err error) {
	n.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstErr == "" {
		r.firstErr = kind + ": " + err.Error()
	}
}

// failureCounts are the failures so far.
type failureCounts struct{ closed, refused, connectFailed int64 }

func (r *Recorder) counts() failureCounts {
	return failureCounts{r.closed.Load(), r.refused.Load(), r.connectFailed.Load()}
}

func (r *Recorder) firstError() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.firstErr
}
