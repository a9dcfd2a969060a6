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
//	strike    a cheap refusal of the address (listener.go sniff, phases.go readHello)
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
// MaxAddresses addresses, counted and blocked together: when full, what has expired is swept
// (at most once a second), and if it is still full a new address is not added. Evicting the
// oldest instead would let an attacker with more addresses than the cap unblock its first ones
// by using new ones; not adding only leaves the newest ones to the cheap refusal, which is
// what they got anyway, and never blocks anyone wrongly.
type blockList struct {
	mu      sync.Mutex
	cfg     Block
	strikes map[netip.Addr]strikeCount
	blocked map[netip.Addr]time.Time // until
	held    atomic.Int64             // len(blocked), so that accept skips the lock while it is 0
	swept   time.Time
}

// strikeCount is an address's strikes in its current window.
type strikeCount struct {
	first time.Time
	n     int
}

// sweepEvery bounds how often a full list is walked for what has expired.
const sweepEvery = time.Second

var blockedDesc = prometheus.NewDesc("moonbridge_blocked_addresses",
	"Client addresses (IPv6: networks of limits.ipv6_prefix bits) on the block list now, refused at "+
		"accept after repeated garbage or malformed handshakes (defence.block).", nil, nil)

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
	b.strikes, b.blocked = map[netip.Addr]strikeCount{}, map[netip.Addr]time.Time{}
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
	if b.cfg.After <= 0 {
		return false
	}
	if until, ok := b.blocked[key]; ok && now.Before(until) {
		return false
	}
	s, ok := b.strikes[key]
	if !ok && !b.room(now) {
		return false
	}
	if !ok || now.Sub(s.first) >= b.cfg.Window {
		s = strikeCount{first: now}
	}
	if s.n++; s.n < b.cfg.After {
		b.strikes[key] = s
		return false
	}
	delete(b.strikes, key)
	b.blocked[key] = now.Add(b.cfg.For)
	b.held.Store(int64(len(b.blocked)))
	return true
}

// room says whether a new address fits, sweeping a full list when it was not swept lately.
func (b *blockList) room(now time.Time) bool {
	if len(b.strikes)+len(b.blocked) < b.cfg.MaxAddresses {
		return true
	}
	if now.Sub(b.swept) < sweepEvery {
		return false
	}
	b.swept = now
	for key, s := range b.strikes {
		if now.Sub(s.first) >= b.cfg.Window {
			delete(b.strikes, key)
		}
	}
	b.countBlocked(now)
	return len(b.strikes)+len(b.blocked) < b.cfg.MaxAddresses
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

// isBlocked says whether client is on the block list; with an empty list it costs one atomic
// load.
func (s *Server) isBlocked(client netip.Addr) bool {
	if s.blocks.held.Load() == 0 {
		return false
	}
	return s.blocks.has(s.counter.addrKey(client), time.Now())
}

// strike notes a cheap refusal of client for the block list and logs the block it starts (at
// most refusalLinesPerSecond lines a second, saying how many were left out). A trusted proxy
// is never struck.
func (s *Server) strike(log zerolog.Logger, client netip.Addr) {
	client = client.Unmap()
	if s.settings().TrustedProxies.Contains(client) {
		return
	}
	key := s.counter.addrKey(client)
	if !s.blocks.strike(key, time.Now()) {
		return
	}
	suppressed, ok := s.sampler.allow("address_blocked", time.Now())
	if !ok {
		return
	}
	ev := log.Info().Str("client", client.String()).Stringer("network", s.blockedNetwork(key)).
		Dur("for", s.blocks.blockFor())
	if suppressed > 0 {
		ev.Int("suppressed", suppressed)
	}
	ev.Msg("address blocked: repeated garbage or malformed handshakes")
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
	return s.blocks.reset(s.settings().Defence.Block)
}
