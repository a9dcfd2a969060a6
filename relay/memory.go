package relay

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/bufpool"
)

// Memory is how the relay keeps its memory in check. The config file's memory section holds
// the fields with yaml tags.
type Memory struct {
	// Profile is the one the process gave its buffer pools (bufpool.SetProfile, which the
	// relay does not call: the pools, the relay's and the TLS layer's, are process-wide). Low
	// also makes the relay trim them: see trimmer.
	Profile bufpool.Profile `yaml:"profile"`
	// Limit is the memory, in bytes, the process must stay under; 0 means none. Near it, new
	// logins are refused (admission control) while running sessions go on. Start sets Go's
	// memory limit (runtime/debug.SetMemoryLimit) to goLimitAt (95) percent of it, and Close
	// puts the previous one back.
	Limit uint64 `yaml:"-"`
	// LimitFrom says where Limit came from (a config key, a cgroup file), for the startup line.
	LimitFrom string `yaml:"-"`
	// FullMessage is what a refused login is told and the server list shows while refusing;
	// empty means DefaultFullMessage.
	FullMessage string `yaml:"full_message"`
	// Usage reads the memory the process uses now; nil means ProcessMemory.
	Usage func() (uint64, error) `yaml:"-"`
}

// DefaultFullMessage is the login disconnect while memory is near the limit.
const DefaultFullMessage = "The server is full right now. Please try again in a few minutes."

// goLimitAt is Go's memory limit in percent of Limit: the rest is room for what Go does not
// count (BoringSSL's C allocations, the binary's pages) before the kernel's limit.
const goLimitAt = 95

// Admission control refuses new logins once usage reaches refuseAt percent of the limit and
// accepts them again below acceptAt percent: the gap keeps it from flapping at the edge.
const (
	refuseAt = 90
	acceptAt = 80
)

// reclaimEvery is how often a watch that refuses logins while memory stays above the accept
// mark gives back what the process can (the pools' free buffers, Go's free heap): RSS alone
// keeps what the load left behind (pooled buffers, heap pages Go has not yet returned), and
// refusing must end once the load has.
const reclaimEvery = 5 * time.Second

// memoryEvery is how often the memory watch samples: a reading costs a small file read, so a
// login only loads an atomic bool.
const memoryEvery = 500 * time.Millisecond

// ErrServerFull ends a login refused because memory is near the limit.
var ErrServerFull = errors.New("memory near the limit: new logins refused")

// memoryWatch samples the process's memory for admission control and, in the Low profile,
// gives memory back to the system after bursts and when idle. One goroutine (run) does both.
type memoryWatch struct {
	cfg      Memory
	log      zerolog.Logger
	refusing atomic.Bool
	warned   atomic.Bool // a failed reading was logged
	trim     *trimmer    // nil outside the Low profile
	goLimit  int64       // Go's memory limit before Start set one, put back by Close; -1 none set
	// reclaim gives memory back to the system (giveBack; tests replace it); sessions counts the
	// running sessions (nil: none are known). lastReclaim is when reclaim last ran (reclaimDue).
	reclaim     func()
	sessions    func() int
	lastReclaim atomic.Int64 // Unix nanoseconds
	// handshakes are the connections not yet sessions, which the guard sheds (handshakes.go);
	// floodPeak is the most of them in progress since memory was last given back (run's alone).
	handshakes *handshakes
	floodPeak  int
	shedLines  sampler      // the shedding lines (memory_guard.go)
	shedSince  atomic.Int64 // handshakes shed for memory since the last line
}

// giveBack hands the pools' free buffers to the garbage collector and the free heap, Go's and
// BoringSSL's, to the system. A sync.Pool (the Throughput profile's) lets its buffers go only
// at the second collection after they were put back, so one runs before FreeOSMemory's.
func giveBack() {
	bufpool.Trim()
	runtime.GC()
	debug.FreeOSMemory()
	gossl.ReleaseMemory()
}

func newMemoryWatch(cfg Memory, log zerolog.Logger) *memoryWatch {
	if cfg.FullMessage == "" {
		cfg.FullMessage = DefaultFullMessage
	}
	if cfg.Usage == nil {
		cfg.Usage = ProcessMemory
	}
	w := &memoryWatch{cfg: cfg, log: log, goLimit: -1, reclaim: giveBack, handshakes: newHandshakes(cfg.Limit),
		shedLines: sampler{lines: 1, period: shedLinePeriod}}
	if cfg.Profile == bufpool.Low {
		w.trim = newTrimmer(time.Now())
	}
	return w
}

// needed says whether run has anything to do.
func (w *memoryWatch) needed() bool { return w.cfg.Limit > 0 || w.trim != nil }

// run samples until ctx ends.
func (w *memoryWatch) run(ctx context.Context) {
	tick := time.NewTicker(memoryEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if w.cfg.Limit > 0 {
				w.sample()
				w.reclaimWhileRefusing(now)
				w.giveBackAfterFlood(now)
			}
			if w.trim != nil {
				w.trimIfDue(now)
			}
		}
	}
}

// sample reads the memory in use and starts or stops refusing logins. Near the limit it sheds
// stalled handshakes first, and refuses logins only when a later sample is still near it with
// none left to shed. It is safe to call from more than one goroutine: each change is made (and
// logged) once.
func (w *memoryWatch) sample() {
	used, err := w.cfg.Usage()
	if err != nil {
		if w.warned.CompareAndSwap(false, true) {
			w.log.Warn().Err(err).Msg("cannot read the memory in use: admission control sees no change until it can")
		}
		return
	}
	limit := w.cfg.Limit
	if used >= limit/100*refuseAt && !w.refusing.Load() {
		if w.shedForMemory(used) > 0 {
			return // what they held shows in a later sample, once the collector has run
		}
		used = w.reclaimBeforeRefusing(used)
	}
	switch {
	case used >= limit/100*refuseAt && w.refusing.CompareAndSwap(false, true):
		w.log.Warn().Uint64("used_mib", used>>20).Uint64("limit_mib", limit>>20).
			Uint64("accept_below_mib", limit/100*acceptAt>>20).
			Msg("memory near the limit: refusing new logins, running sessions go on")
	case used < limit/100*acceptAt && w.refusing.CompareAndSwap(true, false):
		w.log.Info().Uint64("used_mib", used>>20).Uint64("limit_mib", limit>>20).
			Msg("memory back under the limit: accepting new logins again")
	}
}

// reclaimWhileRefusing gives memory back, at most every reclaimEvery, while logins are refused,
// and samples again. When even then no session runs and memory stays above the accept mark,
// what is left is the process at rest, not load: refusing ends (with a warning that the limit
// is too close to it), since it would otherwise never end.
func (w *memoryWatch) reclaimWhileRefusing(now time.Time) {
	if !w.refusing.Load() || !w.reclaimDue(now) {
		return
	}
	w.reclaim()
	w.sample()
	if w.refusing.Load() && w.sessions != nil && w.sessions() == 0 && w.refusing.CompareAndSwap(true, false) {
		used, _ := w.cfg.Usage()
		w.log.Warn().Uint64("used_mib", used>>20).Uint64("limit_mib", w.cfg.Limit>>20).
			Msg("memory stays near the limit with no session running: accepting new logins again; memory.limit is too close to what the process needs at rest")
	}
}

// trimIfDue gives the pools' free buffers to the garbage collector and the free heap back to
// the system when the trimmer says so.
func (w *memoryWatch) trimIfDue(now time.Time) {
	reason := w.trim.due(now, bufpool.Totals())
	if reason == "" {
		return
	}
	giveBack()
	w.log.Debug().Str("after", reason).Msg("memory given back to the system")
}

// startMemoryWatch logs the memory settings, sets Go's memory limit under a limit, and starts
// the memory goroutine when there is a limit or a trim to do; Close stops it through the
// server's context (and stopMemoryWatch puts Go's limit back).
func (s *Server) startMemoryWatch() {
	s.mem.logSettings()
	if limit := s.mem.cfg.Limit; limit > 0 {
		s.mem.goLimit = debug.SetMemoryLimit(int64(limit / 100 * goLimitAt))
	}
	if !s.mem.needed() {
		return
	}
	s.wg.Add(1)
	go func() { defer s.wg.Done(); s.mem.run(s.ctx) }()
}

// stopMemoryWatch puts back the Go memory limit Start replaced; Close calls it after the
// goroutine stopped.
func (s *Server) stopMemoryWatch() {
	if s.mem.goLimit >= 0 {
		debug.SetMemoryLimit(s.mem.goLimit)
		s.mem.goLimit = -1
	}
}

// logSettings writes the memory startup line.
func (w *memoryWatch) logSettings() {
	ev := w.log.Info().Str("profile", w.cfg.Profile.String())
	limit := w.cfg.Limit
	if limit == 0 {
		ev.Msg("Memory profile " + w.cfg.Profile.String() + ", no memory limit")
		return
	}
	ev.Uint64("limit_mib", limit>>20).Str("limit_from", w.cfg.LimitFrom).
		Uint64("go_limit_mib", limit/100*goLimitAt>>20).Uint64("refuse_logins_from_mib", limit/100*refuseAt>>20).
		Uint64("accept_again_below_mib", limit/100*acceptAt>>20).
		Msg("Memory profile " + w.cfg.Profile.String() + ", limit " + strconv.FormatUint(limit>>20, 10) + " MiB")
}
