package bans

import (
	"cmp"
	"errors"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// List is the bans in force, safe for concurrent use. A lookup costs a map access per kind (a
// name, a UUID), or one per network length the list holds for an address (at most 33 for
// IPv4, 129 for IPv6), whatever the number of bans; with no bans of a kind it costs one atomic
// load. A ban that has ended is not found, and goes at the next Sweep (All, Counts, every
// change): nothing needs to take it out.
type List struct {
	mu    sync.RWMutex
	names map[string]Ban
	uuids map[[16]byte]Ban
	nets  map[netip.Prefix]Ban
	// lengths4 and lengths6 count the networks of each length, so that a lookup tries only
	// the lengths the list holds.
	lengths4 [33]int
	lengths6 [129]int
	players  atomic.Int64 // len(names) + len(uuids)
	addrs    atomic.Int64 // len(nets)

	refused [3]atomic.Uint64 // refusals by kind, in Kinds order
}

// ErrFull: the list holds MaxBans bans already.
var ErrFull = errors.New("the ban list is full: it holds at most 200000 bans")

// NewList is an empty list.
func NewList() *List {
	l := &List{}
	l.reset()
	return l
}

func (l *List) reset() {
	l.names, l.uuids, l.nets = map[string]Ban{}, map[[16]byte]Ban{}, map[netip.Prefix]Ban{}
	l.lengths4, l.lengths6 = [33]int{}, [129]int{}
	l.players.Store(0)
	l.addrs.Store(0)
}

// Replace makes bans the whole list (the bans file, read again); more than MaxBans is ErrFull
// and changes nothing. Of two bans with one key, the later one stays.
func (l *List) Replace(bans []Ban) error {
	if len(bans) > MaxBans {
		return ErrFull
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reset()
	for _, b := range bans {
		l.put(b)
	}
	return nil
}

// Add puts b on the list, in place of a ban with its key (replaced); a new key on a full list
// is ErrFull. b comes from Entry.Ban: its value is canonical.
func (l *List) Add(b Ban) (replaced bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, replaced = l.get(b.Kind, b.Value); !replaced && l.size() >= MaxBans {
		l.sweep(time.Now())
		if l.size() >= MaxBans {
			return false, ErrFull
		}
	}
	l.put(b)
	return replaced, nil
}

// Remove takes the ban of kind on value (canonical) off the list; false when there is none.
func (l *List) Remove(kind Kind, value string) (Ban, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.get(kind, value)
	if ok {
		l.remove(kind, value)
	}
	return b, ok
}

// Get is the ban of kind on value (canonical), ended or not.
func (l *List) Get(kind Kind, value string) (Ban, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.get(kind, value)
}

// HasPlayerBans says whether the list holds bans by name or UUID: only then does a login the
// proxy passes through wait for its Login Start before the backend is dialled.
func (l *List) HasPlayerBans() bool { return l.players.Load() > 0 }

// Player is the ban in force at now on the player's UUID, else on its name; uuid "" is none.
func (l *List) Player(name, uuid string, now time.Time) (Ban, bool) {
	if l.players.Load() == 0 {
		return Ban{}, false
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if u, err := ParseUUID(uuid); err == nil {
		if b, ok := l.uuids[u]; ok && b.Active(now) {
			return b, true
		}
	}
	if key, err := canonicalName(name); err == nil {
		if b, ok := l.names[key]; ok && b.Active(now) {
			return b, true
		}
	}
	return Ban{}, false
}

// Addr is the ban in force at now on addr or a network holding it, the narrowest one.
func (l *List) Addr(addr netip.Addr, now time.Time) (Ban, bool) {
	if l.addrs.Load() == 0 || !addr.IsValid() {
		return Ban{}, false
	}
	addr = addr.Unmap().WithZone("")
	l.mu.RLock()
	defer l.mu.RUnlock()
	lengths := l.lengths6[:]
	if addr.Is4() {
		lengths = l.lengths4[:]
	}
	for bits := len(lengths) - 1; bits > 0; bits-- {
		if lengths[bits] == 0 {
			continue
		}
		p, _ := addr.Prefix(bits)
		if b, ok := l.nets[p]; ok && b.Active(now) {
			return b, true
		}
	}
	return Ban{}, false
}

// All is the bans in force at now, by kind and value; the ended ones go first (Sweep).
func (l *List) All(now time.Time) []Ban {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	out := make([]Ban, 0, l.size())
	for _, b := range l.names {
		out = append(out, b)
	}
	for _, b := range l.uuids {
		out = append(out, b)
	}
	for _, b := range l.nets {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b Ban) int {
		return cmp.Or(cmp.Compare(slices.Index(Kinds, a.Kind), slices.Index(Kinds, b.Kind)), cmp.Compare(a.Value, b.Value))
	})
	return out
}

// Counts is how many bans of each kind are in force at now, in Kinds order.
func (l *List) Counts(now time.Time) [3]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	return [3]int{len(l.names), len(l.uuids), len(l.nets)}
}

// Refused counts a player or connection the list refused, by the ban's kind.
func (l *List) Refused(kind Kind) {
	if i := slices.Index(Kinds, kind); i >= 0 {
		l.refused[i].Add(1)
	}
}

// sweep takes out the bans that have ended by now; l.mu is held.
func (l *List) sweep(now time.Time) {
	for _, b := range slices.Concat(ended(l.names, now), ended(l.uuids, now), ended(l.nets, now)) {
		l.remove(b.Kind, b.Value)
	}
}

// ended are the bans of m that have ended by now.
func ended[K comparable](m map[K]Ban, now time.Time) []Ban {
	var out []Ban
	for _, b := range m {
		if !b.Active(now) {
			out = append(out, b)
		}
	}
	return out
}

func (l *List) size() int { return len(l.names) + len(l.uuids) + len(l.nets) }

// get, put and remove keep the maps, the lengths and the counts in step; l.mu is held and the
// values are canonical.
func (l *List) get(kind Kind, value string) (Ban, bool) {
	var b Ban
	var ok bool
	switch kind {
	case KindName:
		b, ok = l.names[value]
	case KindUUID:
		if u, err := ParseUUID(value); err == nil {
			b, ok = l.uuids[u]
		}
	case KindAddress:
		if p, err := netip.ParsePrefix(value); err == nil {
			b, ok = l.nets[p]
		}
	}
	return b, ok
}

func (l *List) put(b Ban) {
	if _, ok := l.get(b.Kind, b.Value); ok {
		l.remove(b.Kind, b.Value)
	}
	switch b.Kind {
	case KindName:
		l.names[b.Value] = b
		l.players.Add(1)
	case KindUUID:
		u, _ := ParseUUID(b.Value)
		l.uuids[u] = b
		l.players.Add(1)
	case KindAddress:
		p := netip.MustParsePrefix(b.Value)
		l.nets[p] = b
		*l.length(p) += 1
		l.addrs.Add(1)
	}
}

func (l *List) remove(kind Kind, value string) {
	switch kind {
	case KindName:
		delete(l.names, value)
		l.players.Add(-1)
	case KindUUID:
		u, _ := ParseUUID(value)
		delete(l.uuids, u)
		l.players.Add(-1)
	case KindAddress:
		p := netip.MustParsePrefix(value)
		delete(l.nets, p)
		*l.length(p) -= 1
		l.addrs.Add(-1)
	}
}

func (l *List) length(p netip.Prefix) *int {
	if p.Addr().Is4() {
		return &l.lengths4[p.Bits()]
	}
	return &l.lengths6[p.Bits()]
}
