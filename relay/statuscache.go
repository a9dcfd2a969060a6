package relay

import (
	"bufio"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/mc"
)

// LastKnown marks the last live status answer a route had as offline, for the server list
// while no backend answers (Route.LastKnown). Empty fields leave that part of the answer as the
// server sent it.
type LastKnown struct {
	// MOTDPrefix goes before the server's MOTD ("§c[offline] ").
	MOTDPrefix string
	// VersionName replaces the server's version name; the answer's protocol becomes -1, which
	// no client speaks, so every client shows this text (in red) in place of the player count.
	VersionName string
}

// maxStatusEntries bounds a route's cache: an entry per protocol version players ping with
// (and per wildcard capture), and a player can send any protocol number. When full, the oldest
// entry goes.
const maxStatusEntries = 64

// statusKey is what a server's status answer can depend on: the client's protocol version
// (servers with ViaVersion answer each version with its own) and, on a route whose backends
// the wildcard capture names, the capture.
type statusKey struct {
	capture  string
	protocol int32
}

type statusEntry struct {
	body []byte // the server's status JSON
	at   time.Time
}

// statusCache holds a route's recent live status answers. A burst of pings for a stale or
// missing entry asks the backend once: the others wait for that answer, or its error.
type statusCache struct {
	mu       sync.Mutex
	entries  map[statusKey]statusEntry
	fetching map[statusKey]*statusFetch
	probed   time.Time // when attack mode last asked the backend (claimProbe)
}

// statusFetch is one question to a backend that several pings wait for.
type statusFetch struct {
	done chan struct{} // closed when body and err are set
	body []byte
	err  error
}

func newStatusCache() *statusCache {
	return &statusCache{entries: map[statusKey]statusEntry{}, fetching: map[statusKey]*statusFetch{}}
}

// get returns a live answer at most ttl old for key: from the cache or a fetch under way
// (shared true), or from fetch, whose answer it keeps. With ttl 0 every call fetches (the
// answers are kept for LastKnown).
func (c *statusCache) get(key statusKey, ttl time.Duration, fetch func() ([]byte, error)) (body []byte, shared bool, err error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok && time.Since(e.at) < ttl {
		c.mu.Unlock()
		return e.body, true, nil
	}
	if f := c.fetching[key]; f != nil && ttl > 0 {
		c.mu.Unlock()
		<-f.done
		return f.body, true, f.err
	}
	f := &statusFetch{done: make(chan struct{})}
	c.fetching[key] = f
	c.mu.Unlock()
	f.body, f.err = fetch()
	c.mu.Lock()
	if f.err == nil {
		c.store(key, f.body)
	}
	if c.fetching[key] == f {
		delete(c.fetching, key)
	}
	c.mu.Unlock()
	close(f.done)
	return f.body, false, f.err
}

// store keeps body as key's newest answer; c.mu is held.
func (c *statusCache) store(key statusKey, body []byte) {
	if _, ok := c.entries[key]; !ok && len(c.entries) >= maxStatusEntries {
		var oldest statusKey
		first := true
		for k, e := range c.entries {
			if first || e.at.Before(c.entries[oldest].at) {
				oldest, first = k, false
			}
		}
		delete(c.entries, oldest)
	}
	c.entries[key] = statusEntry{body: body, at: time.Now()}
}

// last is the last live answer for key, or, when that protocol never got one, the newest for
// key's capture; false when there is none.
func (c *statusCache) last(key statusKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		return e.body, true
	}
	var newest statusEntry
	for k, e := range c.entries {
		if k.capture == key.capture && e.at.After(newest.at) {
			newest = e
		}
	}
	return newest.body, newest.body != nil
}

// attackProbeEvery is how often, in attack mode, a route's backend is asked for its status:
// once per route at most, however many pings come and whatever protocols they say.
const attackProbeEvery = time.Second

// errProbeSpent is a ping in attack mode that found the route's backend asked within
// attackProbeEvery, for another protocol or capture, and no answer kept for its own.
var errProbeSpent = errors.New("attack mode: the backend was asked for its status within " + attackProbeEvery.String())

// claimProbe says whether attack mode may ask the backend now, and if so counts it as asked.
func (c *statusCache) claimProbe(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.probed) < attackProbeEvery {
		return false
	}
	c.probed = now
	return true
}

// statusFromCache answers a status ping in attack mode with the route's live answer, without
// a backend dial per ping: an answer at most attackProbeEvery old (or the route's status_cache,
// when longer) is shared, and a ping that finds none asks the backend, once per route per
// attackProbeEvery, the other pings meanwhile waiting for that answer. When the backend was
// asked already, or does not answer, the last live answer, however old, is better than the
// fixed fallback, which is what a route that never had one gets.
func (s *session) statusFromCache(r *bufio.Reader, hello mc.Hello, route *Route, capture string) {
	key := statusKey{capture: capture, protocol: hello.Handshake.Protocol}
	body, shared, err := route.status.get(key, max(route.StatusCache, attackProbeEvery), func() ([]byte, error) {
		if !route.status.claimProbe(time.Now()) {
			return nil, errProbeSpent
		}
		return s.liveStatus(route, hello.Handshake, capture)
	})
	s.line.answered = statusSource(shared) + " (attack mode)"
	if err != nil {
		var ok bool
		if body, ok = route.status.last(key); !ok {
			s.line.answered = "fallback (attack mode)"
			s.answer(r, hello, s.fallback(), err)
			return
		}
		s.line.answered = "last status (attack mode)"
	}
	s.serveStatus(r, hello, route.Status.apply(body), route, err)
}

// markOffline rewrites a server's status JSON as lk says: the prefix before the description (a
// text component whose extra is the server's own description, string or component alike) and
// the version. Other keys (players, favicon, anything modded servers add) stay as they were.
func (lk LastKnown) markOffline(body []byte) ([]byte, error) {
	var status map[string]json.RawMessage
	if err := json.Unmarshal(body, &status); err != nil {
		return nil, err
	}
	if lk.MOTDPrefix != "" {
		description := status["description"]
		if description == nil {
			description = json.RawMessage(`""`)
		}
		status["description"], _ = json.Marshal(map[string]any{"text": lk.MOTDPrefix, "extra": []json.RawMessage{description}})
	}
	if lk.VersionName != "" {
		status["version"], _ = json.Marshal(map[string]any{"name": lk.VersionName, "protocol": -1})
	}
	return json.Marshal(status)
}
