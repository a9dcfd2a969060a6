package relay

import (
	"container/heap"
	"container/list"
	"context"
	"errors"
	"net/netip"
	"sync"
	"time"
)

// handshakeCost is what the memory guard counts a connection between accept and the start of
// its session at: a stalled TLS handshake holds 14.5-16.0 kB with crypto/tls and 19.3-19.9 kB
// with BoringSSL (bench/results/2026-12-04-stalled-handshakes.md), a stalled WebSocket upgrade
// or Minecraft hello less. The larger, rounded up.
const handshakeCost = 20 << 10

// handshakeShare is the percent of memory.limit the handshakes in progress may hold together,
// counted at handshakeCost each: 20% of 128 MiB is 1,310 of them, more than a thousand logins a
// second need (a real handshake is done in a few round trips). It is a fifth rather than more
// because a flood's churn costs more than its standing handshakes (those being shed, the
// collector's garbage): 25% let BoringSSL's resident memory reach 129 MiB under a 128 MiB limit
// (bench/results/2026-12-04-stalled-handshakes.md). The rest is the sessions', which the
// memory limit refuses logins for.
const handshakeShare = 20

// shedBatch: a guard whose handshakes reach their budget sheds 1/shedBatch of the budget at
// once, so the pick, which looks at every handshake in progress, runs once per that many
// accepts rather than at each one.
const shedBatch = 8

// stalledAfter is the age from which a handshake counts as stalled for the shedding that the
// resident memory starts (shedForMemory): a player's TLS, upgrade and hello take a few round
// trips, well under it, so a login in progress is not shed for memory the handshakes do not hold.
const stalledAfter = 2 * time.Second

// errShed closes a handshake in progress that the memory guard shed.
var errShed = errors.New("handshake shed by the memory guard: handshakes in progress over their share of memory.limit")

// handshakes are the connections between accept and the start of their session (TLS
// handshake, WebSocket upgrade, Minecraft hello), oldest first, for the memory guard.
type handshakes struct {
	budget int                  // most handshakes in progress; 0: no memory limit, no budget
	limits func() NetworkLimits // what makes a client's network, read at each pick

	mu    sync.Mutex
	order list.List // *handshake, oldest first
	peak  int       // most in progress since the last takePeak
	seq   uint64
	// pending are accepted connections whose goroutine has not started: nothing to shed yet,
	// but each holds a socket and a goroutine, and a flood accepted faster than the CPUs handle
	// it piles them up.
	pending int
}

// handshake is one connection's entry; elem is nil once it has left the list.
type handshake struct {
	info     *connInfo
	shed     func()
	accepted time.Time
	seq      uint64
	elem     *list.Element
}

func newHandshakes(limit uint64) *handshakes {
	return &handshakes{budget: int(limit / 100 * handshakeShare / handshakeCost)}
}

// track counts info's connection as a handshake in progress until it starts its session or
// closes (connInfo.untrack); shed closes it when the guard picks it. When the handshakes in
// progress reach the budget, the guard sheds a batch of them first (takeLocked says which).
func (h *handshakes) track(info *connInfo, accepted time.Time, shed func()) {
	e := &handshake{info: info, shed: shed, accepted: accepted}
	info.untrack = func() { h.remove(e) }
	h.mu.Lock()
	var victims []*handshake
	if h.budget > 0 && h.order.Len()+h.pending >= h.budget {
		victims = h.takeLocked(max(h.budget/shedBatch, 1), time.Time{})
	}
	h.seq++
	e.seq = h.seq
	e.elem = h.order.PushBack(e)
	h.peak = max(h.peak, h.order.Len())
	h.mu.Unlock()
	shedAll(victims)
}

// maxPending is the share of the budget, 1/maxPending, that accepted connections waiting for
// their goroutine may take: past it the accept loop waits for them (pendingWait at a time), and
// the kernel's accept queue, which costs the process nothing, holds the next ones.
const (
	maxPending  = 4
	pendingWait = time.Millisecond
)

// accepted counts a connection just accepted as pending until its goroutine starts (started).
// While as many are pending as a quarter of the budget, it waits for them first, until ctx ends.
func (h *handshakes) accepted(ctx context.Context) {
	for h.budget > 0 && ctx.Err() == nil && h.pendingNow() >= max(h.budget/maxPending, 1) {
		time.Sleep(pendingWait)
	}
	h.mu.Lock()
	h.pending++
	h.mu.Unlock()
}

// started: an accepted connection's goroutine runs, and tracks it if it gets that far.
func (h *handshakes) started() {
	h.mu.Lock()
	h.pending--
	h.mu.Unlock()
}

func (h *handshakes) pendingNow() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pending
}

func (h *handshakes) remove(e *handshake) {
	h.mu.Lock()
	if e.elem != nil {
		h.order.Remove(e.elem)
		e.elem = nil
	}
	h.mu.Unlock()
}

// count is the handshakes in progress now.
func (h *handshakes) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.order.Len()
}

// shedStalled sheds up to n handshakes accepted before stalledAfter ago and says how many it shed.
func (h *handshakes) shedStalled(n int, now time.Time) int {
	h.mu.Lock()
	victims := h.takeLocked(n, now.Add(-stalledAfter))
	h.mu.Unlock()
	shedAll(victims)
	return len(victims)
}

// takePeak returns the most handshakes in progress since the last call, and starts counting
// again from those in progress now.
func (h *handshakes) takePeak() (peak, now int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	peak, now = h.peak, h.order.Len()
	h.peak = now
	return peak, now
}

func shedAll(victims []*handshake) {
	for _, v := range victims {
		v.shed()
	}
}

// takeLocked picks up to n handshakes accepted before "before" (zero: any) and takes them off
// the list: each from the client network that has the most handshakes in progress then, its
// oldest first; between networks with as many, the one with the oldest. Most-per-network
// rather than oldest-first, because a flood is many handshakes from few networks, a player one
// handshake from its own, and the player's may be the oldest: a player stalled by a slow link
// is not shed while a network holding more is. A flood spread one handshake per network falls
// back to oldest first, and a player's handshake, done in a few round trips, is young.
func (h *handshakes) takeLocked(n int, before time.Time) []*handshake {
	nets := h.byNetworkLocked(before)
	var victims []*handshake
	for len(victims) < n && nets.Len() > 0 {
		g := nets[0]
		victims = append(victims, g.entries[0])
		if g.entries = g.entries[1:]; len(g.entries) == 0 {
			heap.Pop(&nets)
		} else {
			heap.Fix(&nets, 0)
		}
	}
	for _, v := range victims {
		h.order.Remove(v.elem)
		v.elem = nil
	}
	return victims
}

// byNetworkLocked groups the handshakes accepted before "before" (zero: all) by the client's
// network, each group oldest first, as a heap with the largest group on top.
func (h *handshakes) byNetworkLocked(before time.Time) networkHeap {
	limits := defaultNetworkLimits()
	if h.limits != nil {
		limits = h.limits()
	}
	groups := map[netip.Prefix]*networkHandshakes{}
	var nets networkHeap
	for el := h.order.Front(); el != nil; el = el.Next() {
		e := el.Value.(*handshake)
		if !before.IsZero() && !e.accepted.Before(before) {
			continue
		}
		key := networkOf(e.info.clientAddr().Addr(), limits)
		g := groups[key]
		if g == nil {
			g = &networkHandshakes{}
			groups[key] = g
			nets = append(nets, g)
		}
		g.entries = append(g.entries, e)
	}
	heap.Init(&nets)
	return nets
}

// networkHandshakes are one network's handshakes in progress, oldest first.
type networkHandshakes struct{ entries []*handshake }

// networkHeap has the network with the most handshakes on top; between equals, the one whose
// oldest is older.
type networkHeap []*networkHandshakes

func (n networkHeap) Len() int { return len(n) }
func (n networkHeap) Less(i, j int) bool {
	a, b := n[i].entries, n[j].entries
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a[0].seq < b[0].seq
}
func (n networkHeap) Swap(i, j int) { n[i], n[j] = n[j], n[i] }
func (n *networkHeap) Push(x any)   { *n = append(*n, x.(*networkHandshakes)) }
func (n *networkHeap) Pop() any {
	old := *n
	last := old[len(old)-1]
	*n = old[:len(old)-1]
	return last
}
