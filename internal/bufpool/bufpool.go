// Package bufpool holds the process's pools of I/O buffers, which the relay and the TLS layer
// share, and the memory profile they run in:
//
//   - Throughput (the zero value, what libraries and tests get): a sync.Pool per size. Buffers
//     stay pooled until two garbage collections pass without them being used, so a burst's
//     buffers are reused by the next burst.
//   - Low: a bounded free list per size. At most LowKeep buffers are kept; a buffer given back
//     beyond that goes to the garbage collector at once, so the memory of a burst is not kept
//     for the next one, and Trim empties the lists when the process is quiet.
//
// The profile is process-wide, as the pools are: SetProfile switches every pool.
package bufpool

import (
	"sync"
	"sync/atomic"

	"github.com/moonbridge/moonbridge/internal/enum"
)

// Profile says how pools keep buffers that are given back.
type Profile int32

const (
	Throughput Profile = iota // sync.Pool: keep what the garbage collector lets us keep
	Low                       // keep at most LowKeep free buffers per pool
)

func (p Profile) String() string {
	if p == Low {
		return "low"
	}
	return "throughput"
}

// ParseProfile reads "low" or "throughput".
func ParseProfile(s string) (Profile, error) {
	name, err := enum.Parse([]byte(s), "low", "throughput")
	if err != nil {
		return 0, err
	}
	if name == "low" {
		return Low, nil
	}
	return Throughput, nil
}

// UnmarshalText reads "low" or "throughput".
func (p *Profile) UnmarshalText(text []byte) (err error) {
	*p, err = ParseProfile(string(text))
	return err
}

// MarshalText writes the profile's name.
func (p Profile) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// LowKeep is how many free buffers one pool keeps in the Low profile: enough for the reads of a
// few sessions moving data at the same moment, little next to a burst (8 64 KiB buffers are
// 0.5 MiB).
const LowKeep = 8

var (
	profile  atomic.Int32 // a Profile
	poolsMu  sync.Mutex
	allPools []*Pool
)

// Pool hands out buffers of one size.
type Pool struct {
	size int
	sync sync.Pool // the Throughput profile's

	mu   sync.Mutex // the Low profile's free list
	free []*[]byte

	out     atomic.Int64  // handed out and not given back yet
	taken   atomic.Uint64 // Gets ever
	dropped atomic.Uint64 // buffers given back that the Low profile left to the garbage collector
}

// New returns a pool of size-byte buffers, registered for SetProfile, Trim and Totals. Pools are
// meant to be package variables: they are never unregistered.
func New(size int) *Pool {
	p := &Pool{size: size}
	p.sync.New = func() any { b := make([]byte, size); return &b }
	poolsMu.Lock()
	allPools = append(allPools, p)
	poolsMu.Unlock()
	return p
}

// Get returns a buffer of the pool's size; its contents are whatever the last user left.
func (p *Pool) Get() *[]byte {
	p.out.Add(1)
	p.taken.Add(1)
	if Profile(profile.Load()) == Throughput {
		return p.sync.Get().(*[]byte)
	}
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	b := make([]byte, p.size)
	return &b
}

// Put gives b back; b must have come from this pool's Get.
func (p *Pool) Put(b *[]byte) {
	p.out.Add(-1)
	if Profile(profile.Load()) == Throughput {
		p.sync.Put(b)
		return
	}
	p.mu.Lock()
	if len(p.free) < LowKeep {
		p.free = append(p.free, b)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.dropped.Add(1)
}

// trim empties the free list; the Throughput profile's sync.Pool empties itself.
func (p *Pool) trim() {
	p.mu.Lock()
	clear(p.free)
	p.free = p.free[:0]
	p.mu.Unlock()
}

// Stats are a pool's counts, or the sum over pools (Totals).
type Stats struct {
	Out     int64  // buffers handed out and not given back
	Kept    int64  // free buffers in Low profile lists (sync.Pool contents are not counted)
	Taken   uint64 // Gets ever
	Dropped uint64 // buffers given back that the Low profile did not keep
}

// Stats returns the pool's counts now.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	kept := int64(len(p.free))
	p.mu.Unlock()
	return Stats{Out: p.out.Load(), Kept: kept, Taken: p.taken.Load(), Dropped: p.dropped.Load()}
}

// Totals returns the counts of every pool together.
func Totals() Stats {
	var sum Stats
	for _, p := range pools() {
		s := p.Stats()
		sum.Out += s.Out
		sum.Kept += s.Kept
		sum.Taken += s.Taken
		sum.Dropped += s.Dropped
	}
	return sum
}

// Trim gives every free buffer of the Low profile lists to the garbage collector.
func Trim() {
	for _, p := range pools() {
		p.trim()
	}
}

// SetProfile switches every pool, now and for pools made later. Buffers kept in the other
// profile's way are let go (Low lists are trimmed; a sync.Pool empties itself within two
// garbage collections).
func SetProfile(p Profile) {
	profile.Store(int32(p))
	if p == Throughput {
		Trim()
	}
}

// CurrentProfile is the profile the pools run in.
func CurrentProfile() Profile { return Profile(profile.Load()) }

func pools() []*Pool {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	return append([]*Pool(nil), allPools...)
}
