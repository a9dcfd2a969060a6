// Package maintenance keeps which routes are under maintenance, from the config file's
// maintenance list and the admin endpoint's PUT /maintenance, and hands the relay the result
// (relay.Maintenance) each time it changes. The last writer of a route's entry wins: a switch
// through the admin endpoint lasts until the file's entry for that route changes (a reload of
// an unchanged file keeps it) or the process ends.
package maintenance

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

// Relay is what the book needs of the running relay.
type Relay interface {
	SetMaintenance(relay.Maintenance)
	KickForMaintenance(label string) relay.MaintenanceKicks
	RouteLabels() []string
}

// Book holds the maintenance entries by route label ("" for every route).
type Book struct {
	mu     sync.Mutex
	relay  Relay
	log    zerolog.Logger
	file   File                // the config file's
	api    map[string]switched // the admin endpoint's, ahead of the file's
	active map[string]bool     // which entries applied at the last look (tick)
	timer  *time.Timer         // the next start or end time, to log it
}

// switched is one route's entry and who set it.
type switched struct {
	entry config.MaintenanceEntry // as written (an icon: the file's path, or base64 from the API)
	mode  *relay.MaintenanceMode  // nil: off
	api   bool                    // set through the admin endpoint
}

// New is a book with no maintenance, for r.
func New(r Relay, log zerolog.Logger) *Book {
	return &Book{relay: r, log: log, file: File{}, api: map[string]switched{}, active: map[string]bool{}}
}

// File is the config file's maintenance list as read (Read), by route.
type File map[string]switched

// Read reads the config file's maintenance list (validated by config.Validate): the texts, the
// allowlists, the times and the icon files.
func Read(entries []config.MaintenanceEntry) (File, error) {
	f := File{}
	for i, e := range entries {
		mode, err := e.Mode("maintenance["+strconv.Itoa(i)+"]", config.ReadIcon)
		if err != nil {
			return nil, err
		}
		f[e.Route] = switched{entry: e, mode: mode}
	}
	return f, nil
}

// ApplyFile takes the config file's maintenance list: each route whose entry changed gets it,
// in place of a switch through the admin endpoint. One line is logged per changed entry.
func (b *Book) ApplyFile(next File) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, route := range keys(b.file, next) {
		if reflect.DeepEqual(b.file[route].entry, next[route].entry) {
			continue
		}
		delete(b.api, route)
		s := next[route]
		s.entry.Route = route // an entry the file no longer has: off
		b.logSwitch(s, "the config file", "")
	}
	b.file = next
	b.push()
}

// ErrEndPassed is a maintenance whose end time has passed: it would never apply.
var ErrEndPassed = errors.New("end: the time has passed; the maintenance would never apply")

// UnknownRouteError is a maintenance asked for a route that is not served (and has no entry).
type UnknownRouteError struct{ Route string }

func (e *UnknownRouteError) Error() string {
	return fmt.Sprintf(`no route is labelled %.100q (route "" is every route)`, e.Route)
}

// Put switches one route's maintenance (or every route's) as the admin endpoint was asked by
// from, and, when e.Kick, kicks the players it turns away (relay.KickForMaintenance).
func (b *Book) Put(e config.MaintenanceEntry, from string) (*relay.MaintenanceKicks, error) {
	mode, err := e.Mode("", config.IconFromBase64)
	if err != nil {
		return nil, err
	}
	if mode != nil && !mode.End.IsZero() && !time.Now().Before(mode.End) {
		return nil, ErrEndPassed
	}
	s := switched{entry: e, mode: mode, api: true}
	s.entry.Kick = false
	if err := b.switchAPI(s); err != nil {
		return nil, err
	}
	var kicks *relay.MaintenanceKicks // after the switch, outside the lock: it waits for the Disconnects
	if e.Kick && mode != nil {
		k := b.relay.KickForMaintenance(e.Route)
		kicks = &k
	}
	b.logSwitch(s, "the admin endpoint", from, kicks)
	return kicks, nil
}

// switchAPI puts s in force for its route, which must be served or have an entry already.
func (b *Book) switchAPI(s switched) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	route := s.entry.Route
	if route != "" && !slices.Contains(b.relay.RouteLabels(), route) && !b.hasEntry(route) {
		return &UnknownRouteError{Route: route}
	}
	b.api[route] = s
	b.push()
	return nil
}

func (b *Book) hasEntry(route string) bool {
	_, inFile := b.file[route]
	_, inAPI := b.api[route]
	return inFile || inAPI
}

// effective is each route's entry in force: the admin endpoint's, else the file's; b.mu held.
func (b *Book) effective() map[string]switched {
	out := maps.Clone(b.file)
	maps.Copy(out, b.api)
	return out
}

// push hands the relay the entries in force and notes which apply now; b.mu held.
func (b *Book) push() {
	m := relay.Maintenance{Routes: map[string]*relay.MaintenanceMode{}}
	for route, s := range b.effective() {
		if route == "" {
			m.All = s.mode
		} else {
			m.Routes[route] = s.mode // nil, an entry that is off, keeps the route open
		}
	}
	b.relay.SetMaintenance(m)
	b.look(false)
}

// look notes which entries apply now, logging those that began or ended on their own (logTimes),
// and sets the timer for the next start or end time; b.mu held.
func (b *Book) look(logTimes bool) {
	now := time.Now()
	var next time.Time
	for route, s := range b.effective() {
		on := s.mode.ActiveAt(now)
		if logTimes && on != b.active[route] {
			b.log.Info().Str("route", route).Bool("active", on).Str("by", "its start or end time").Msg(switchText(on))
		}
		b.active[route] = on
		if s.mode != nil {
			next = earliestAfter(now, next, s.mode.Start, s.mode.End)
		}
	}
	if b.timer != nil {
		b.timer.Stop()
	}
	if !next.IsZero() {
		b.timer = time.AfterFunc(time.Until(next)+time.Millisecond, b.tick)
	}
}

// earliestAfter is the earliest of next (zero: none) and times that is after now.
func earliestAfter(now, next time.Time, times ...time.Time) time.Time {
	for _, t := range times {
		if t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next
}

func (b *Book) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.look(true)
}

// Stop stops the timer of the next start or end time.
func (b *Book) Stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer != nil {
		b.timer.Stop()
	}
}

// logSwitch writes the one line of a change: which route, on or off, applying now or not, and
// who asked (by, and from: the admin request's address).
func (b *Book) logSwitch(s switched, by, from string, kicks ...*relay.MaintenanceKicks) {
	active := s.mode.ActiveAt(time.Now())
	ev := b.log.Info().Str("route", s.entry.Route).Bool("on", s.entry.On).Bool("active", active).Str("by", by).
		Int("allow", len(s.entry.Allow)).Str("start", s.entry.Start).Str("end", s.entry.End)
	if from != "" {
		ev.Str("from", from)
	}
	if len(kicks) > 0 && kicks[0] != nil {
		ev.Int("kicked", kicks[0].Kicked).Int("told", kicks[0].Told).Int("allowed", kicks[0].Allowed)
	}
	if s.entry.On && !active {
		ev.Msg("maintenance switched on, from its start time")
		return
	}
	ev.Msg(switchText(s.entry.On && active))
}

func switchText(on bool) string {
	if on {
		return "maintenance on"
	}
	return "maintenance off"
}

// Status is what GET /maintenance answers: every route's maintenance (route ""), each served
// route's state, and the entries in force.
type Status struct {
	On      bool   `json:"on"`                // every route's maintenance is switched on
	Active  bool   `json:"active"`            // and applies now (within its times)
	Message string `json:"message,omitempty"` // its message, while on
	// Routes are the routes served now, each as the maintenance that decides for it says.
	Routes []RouteState `json:"routes"`
	// Entries are the entries in force, "" (every route) first, then by route.
	Entries []Entry `json:"maintenance"`
}

// RouteState is one served route under the entry that decides for it: its own, or else every
// route's (Own false).
type RouteState struct {
	Route  string `json:"route"`
	On     bool   `json:"on"`
	Active bool   `json:"active"`
	Own    bool   `json:"own"`
}

// Entry is one entry in force: as switched (the icon as the PNG in base64), whether it applies
// now, and where it came from ("file" or "api").
type Entry struct {
	config.MaintenanceEntry
	Active bool   `json:"active"`
	Source string `json:"source"`
}

// Status is the maintenance now.
func (b *Book) Status() Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	now, eff := time.Now(), b.effective()
	all := eff[""]
	st := Status{On: all.entry.On, Active: all.mode.ActiveAt(now), Routes: []RouteState{}, Entries: []Entry{}}
	if st.On {
		st.Message = all.entry.Message
	}
	for _, route := range b.relay.RouteLabels() {
		s, own := eff[route]
		if !own {
			s = all
		}
		st.Routes = append(st.Routes, RouteState{Route: route, On: s.entry.On, Active: s.mode.ActiveAt(now), Own: own})
	}
	for _, route := range slices.Sorted(maps.Keys(eff)) {
		st.Entries = append(st.Entries, entryOf(eff[route], now))
	}
	return st
}

// entryOf is s as Status lists it.
func entryOf(s switched, now time.Time) Entry {
	e := Entry{MaintenanceEntry: s.entry, Active: s.mode.ActiveAt(now), Source: "file"}
	if s.api {
		e.Source = "api"
	}
	e.Icon = ""
	if s.mode != nil {
		e.Icon = strings.TrimPrefix(s.mode.Favicon, "data:image/png;base64,")
	}
	return e
}

// keys is the union of a's and b's keys, sorted.
func keys(a, b map[string]switched) []string {
	all := maps.Clone(a)
	maps.Copy(all, b)
	return slices.Sorted(maps.Keys(all))
}
