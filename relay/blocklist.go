package relay

import (
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// The block list: a client address (its limit key: itself, or its IPv6 network of
// limits.ipv6_prefix bits) whose connections were refused as garbage or a malformed hello
// Block.After times within Block.Window is refused for Block.For, before a byte is read:
//
//	strike    a cheap refusal of the address (listener.go sniff, phases.go readHello), or
//	          rateRefusalsPerStrike refusals by its per-address rate within a window
//	          -> counted in its window (from its first strike; a strike after the window
//	             starts a new one)
//	          -> the After-th in the window: blocked until now + For, one log line
//	at accept a peer on the list is closed at once (no read, no slot, no log line each)
//	PROXY     a trusted proxy's player is checked once the header names it, before the
//	          sniff reads its bytes; a forwarded-for player (ws behind a CDN) once the
//	          upgrade named it, before its session
//
// A trusted proxy's own address is never struck, so never blocked; a reload (which is what
// can make an address trusted) and ClearBlockList empty the list. It remembers at most
// MaxAddresses addresses, struck and blocked together, and as many whose refusals by the rate
// it counts (remembered): when full, what has expired is swept
// (at most once a second), and if it is still full a new address is not added. Evicting the
// oldest instead would let an attacker with more addresses than the cap unblock its first ones
// by using new ones; not adding only leaves the newest ones to the cheap refusal, which is
// what they got anyway, and never blocks anyone wrongly.
type blockList struct {
	mu      sync.Mutex
	cfg     Block
	strikes map[netip.Addr]strikeCount
	// overRate counts refusals by the per-address rate toward the address's next strike.
	overRate map[netip.Addr]strikeCount
	blocked  map[netip.Addr]time.Time // until
	held     atomic.Int64             // len(blocked), so that accept skips the lock while it is 0
	swept    time.Time
}

// strikeCount is an address's strikes in its current window.
type strikeCount struct {
	first time.Time
	n     int
}

// sweepEvery bounds how often a full list is walked for what has expired.
const sweepEvery = time.Second

// rateRefusalsPerStrike is how many refusals by its per-address rate make one strike of an
// address: at the defaults (5 strikes in 10 s) an address refused 1,000 times in 10 s, 100 a
// second over its rate of 5, is blocked. A flood tool from one address does that many times
// over; no school or carrier-grade NAT of players does (50 players joining at once are 90
// refusals, once), and blocking them would lock all of them out for the block's length.
const rateRefusalsPerStrike = 200

var blockedDesc = prometheus.NewDesc("moonbridge_blocked_addresses",
	"Client addresses (IPv6: networks of limits.ipv6_prefix bits) on the block list now, refused at "+
		"accept after repeated garbage or malformed handshakes, or sustained connections far over their "+
		"rate (defence.block).", nil, nil)

func newBlockList(cfg Block) *blockList {
	b := &blockList{}
	b.reset(cfg)
	return b
}

// reset empties the list and applies cfg; it returns how many addresses were blocked.
func (b *blockList) reset(cfg Block) (cleared int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cleared = b.countBlocked(time.Now())
	b.cfg = cfg.withDefaults()
	b.strikes, b.overRate, b.blocked = map[netip.Addr]strikeCount{}, map[netip.Addr]strikeCount{}, map[netip.Addr]time.Time{}
	b.held.Store(0)
	return cleared
}

// has says whether key is blocked at now; an expired entry goes.
func (b *blockList) has(key netip.Addr, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	until, ok := b.blocked[key]
	if ok && !now.Before(until) {
		b.unblock(key)
		return false
	}
	return ok
}

// strike counts one cheap refusal of key and says whether it blocked key.
func (b *blockList) strike(key netip.Addr, now time.Time) (blocked bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts(key, now) && b.strikeLocked(key, now)
}

// refusedOverRate counts one refusal of key by its per-address rate, every
// rateRefusalsPerStrike of them a strike, and says whether it blocked key.
func (b *blockList) refusedOverRate(key netip.Addr, now time.Time) (blocked bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts(key, now) && b.count(overRateCounts, key, now) && b.strikeLocked(key, now)
}

// strikeLocked counts a strike of key and blocks it on the After-th; b.mu is held.
func (b *blockList) strikeLocked(key netip.Addr, now time.Time) (blocked bool) {
	if !b.count(strikeCounts, key, now) {
		return false
	}
	b.blocked[key] = now.Add(b.cfg.For)
	b.held.Store(int64(len(b.blocked)))
	return true
}

// counts says whether key's refusals are counted: the list is on and key is not blocked now.
// b.mu is held.
func (b *blockList) counts(key netip.Addr, now time.Time) bool {
	if b.cfg.After <= 0 {
		return false
	}
	until, ok := b.blocked[key]
	return !ok || !now.Before(until)
}

// countKind is which of the list's counts count adds to.
type countKind bool

const (
	strikeCounts   countKind = false // strikes toward a block, Block.After of them
	overRateCounts countKind = true  // refusals by the rate toward a strike, rateRefusalsPerStrike
)

// count adds one to key's count of kind, within its window, and says whether that made a full
// count, which starts key's count anew. A new key is not counted when there is no room for it.
// b.mu is held.
func (b *blockList) count(kind countKind, key netip.Addr, now time.Time) bool {
	counts, after := b.strikes, b.cfg.After
	if kind == overRateCounts {
		counts, after = b.overRate, rateRefusalsPerStrike
	}
	s, ok := counts[key]
	if !ok && !b.room(kind, now) {
		return false
	}
	if !ok || now.Sub(s.first) >= b.cfg.Window {
		s = strikeCount{first: now}
	}
	if s.n++; s.n < after {
		counts[key] = s
		return false
	}
	delete(counts, key)
	return true
}

// room says whether a new address fits in the counts of kind, sweeping a full list when it was
// not swept lately.
func (b *blockList) room(kind countKind, now time.Time) bool {
	if b.remembered(kind) < b.cfg.MaxAddresses {
		return true
	}
	if now.Sub(b.swept) < sweepEvery {
		return false
	}
	b.swept = now
	for _, counts := range []map[netip.Addr]strikeCount{b.strikes, b.overRate} {
		for key, s := range counts {
			if now.Sub(s.first) >= b.cfg.Window {
				delete(counts, key)
			}
		}
	}
	b.countBlocked(now)
	return b.remembered(kind) < b.cfg.MaxAddresses
}

// remembered is how many addresses count against the room for kind: the struck and the blocked
// together, and the over-rate counts on their own, so that a spread flood's refusals by the
// rate do not crowd out the strikes of garbage. b.mu is held.
func (b *blockList) remembered(kind countKind) int {
	if kind == overRateCounts {
		return len(b.overRate)
	}
	return len(b.strikes) + len(b.blocked)
}

// countBlocked drops the expired blocks and counts the others; b.mu is held.
func (b *blockList) countBlocked(now time.Time) int {
	for key, until := range b.blocked {
		if !now.Before(until) {
			b.unblock(key)
		}
	}
	return len(b.blocked)
}

// unblock takes key off the list; b.mu is held.
func (b *blockList) unblock(key netip.Addr) {
	delete(b.blocked, key)
	b.held.Store(int64(len(b.blocked)))
}

// entries are the blocked keys with their ends.
func (b *blockList) entries(now time.Time) map[netip.Addr]time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.countBlocked(now)
	out := make(map[netip.Addr]time.Time, len(b.blocked))
	for key, until := range b.blocked {
		out[key] = until
	}
	return out
}

func (b *blockList) size(now time.Time) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.countBlocked(now)
}

// isBlocked says whether client is on the block list, or on the one the replicas share; with
// both empty it costs two atomic loads (one without replicas).
func (s *Server) isBlocked(client netip.Addr) bool {
	if s.blocks.held.Load() == 0 {
		return s.blockedElsewhere(client)
	}
	return s.blocks.has(s.counter.addrKey(client), time.Now()) || s.blockedElsewhere(client)
}

// strike notes a cheap refusal of client for the block list and logs the block it starts.
func (s *Server) strike(log zerolog.Logger, client netip.Addr) {
	s.strikeBy(log, client, s.blocks.strike, "address blocked: repeated garbage or malformed handshakes")
}

// strikeOverRate notes a refusal of client by its per-address rate for the block list and
// logs the block it starts.
func (s *Server) strikeOverRate(log zerolog.Logger, client netip.Addr) {
	s.strikeBy(log, client, s.blocks.refusedOverRate, "address blocked: sustained connections far over its rate")
}

// strikeBy counts a refusal of client with count and logs the block it starts as msg says (at
// most refusalLinesPerSecond lines a second, saying how many were left out). A trusted proxy
// is never struck.
func (s *Server) strikeBy(log zerolog.Logger, client netip.Addr, count func(netip.Addr, time.Time) bool, msg string) {
	client = client.Unmap()
	if s.settings().TrustedProxies.Contains(client) {
		return
	}
	key := s.counter.addrKey(client)
	if !count(key, time.Now()) {
		return
	}
	s.shareBlock(key)
	suppressed, ok := s.sampler.allow("address_blocked", time.Now())
	if !ok {
		return
	}
	ev := log.Info().Str("client", client.String()).Stringer("network", s.blockedNetwork(key)).
		Dur("for", s.blocks.blockFor())
	if suppressed > 0 {
		ev.Int("suppressed", suppressed)
	}
	ev.Msg(msg)
}

func (b *blockList) blockFor() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cfg.For
}

// blockedNetwork is the network a block list key stands for.
func (s *Server) blockedNetwork(key netip.Addr) netip.Prefix {
	bits := 32
	if key.Is6() {
		bits = s.settings().limits.IPv6Prefix
	}
	return netip.PrefixFrom(key, bits)
}

// BlockedNetwork is an entry of the block list: an address (IPv6: its network) and when its
// block ends.
type BlockedNetwork struct {
	Network netip.Prefix `json:"network"`
	Until   time.Time    `json:"until"`
}

// BlockList is what the block list holds now, sorted by network.
func (s *Server) BlockList() []BlockedNetwork {
	var out []BlockedNetwork
	for key, until := range s.blocks.entries(time.Now()) {
		out = append(out, BlockedNetwork{Network: s.blockedNetwork(key), Until: until})
	}
	slices.SortFunc(out, func(a, b BlockedNetwork) int { return a.Network.Addr().Compare(b.Network.Addr()) })
	return out
}

// ClearBlockList empties the block list (and the strikes counted toward it) and says how many
// addresses were blocked.
func (s *Server) ClearBlockList() int {
	s.clearSharedBlocks()
	return s.blocks.reset(s.settings().Defence.Block)
}
