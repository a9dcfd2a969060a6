package routebook

import (
	"fmt"
	"slices"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// What the routes API asks of the book: the routes by origin (list, find), and changes of the
// API's own routes (add, change, remove). The file's routes and the sources' are read-only
// here: the file is edited and reloaded, a source changes what it finds.

// refusal says why the book does not make a change the API asked for.
type refusal int

const (
	refusedInvalid  refusal = iota // the route fails the checks a file route gets
	refusedConflict                // it clashes with another route, or the route is not the API's
	refusedNotFound                // no route has that name
)

// refusedChange is a change of the API's routes the book does not make, and why.
type refusedChange struct {
	why refusal
	err error
}

func (e *refusedChange) Error() string { return e.err.Error() }
func (e *refusedChange) Unwrap() error { return e.err }

// List is every route of the book, in merge order.
func (b *Book) List() []Entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.current.entries)
}

// Find is the route labelled name; the first in merge order when several are.
func (b *Book) Find(name string) (Entry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.current.Find(name)
}

func (m bookMerge) Find(name string) (Entry, bool) {
	i := slices.IndexFunc(m.entries, func(e Entry) bool { return e.Route.Label() == name })
	if i < 0 {
		return Entry{}, false
	}
	return m.entries[i], true
}

// Add serves r as the API's newest route.
func (b *Book) Add(r config.Route) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkAPI(r, -1); err != nil {
		return err
	}
	return b.setAPI(append(slices.Clone(b.api), r))
}

// Change replaces the API's route labelled name with r, which must be labelled name too; it
// keeps its place among the API's routes.
func (b *Book) Change(name string, r config.Route) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	i, err := b.apiIndex(name)
	if err != nil {
		return err
	}
	if r.Label() != name {
		return &refusedChange{refusedInvalid, fmt.Errorf("the route given is named %q, not %q: to rename a route, add the new one and remove the old", r.Label(), name)}
	}
	if err := b.checkAPI(r, i); err != nil {
		return err
	}
	next := slices.Clone(b.api)
	next[i] = r
	return b.setAPI(next)
}

// Remove takes the API's route labelled name away.
func (b *Book) Remove(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	i, err := b.apiIndex(name)
	if err != nil {
		return err
	}
	return b.setAPI(slices.Delete(slices.Clone(b.api), i, i+1))
}

// apiIndex is the place of the API's route labelled name.
func (b *Book) apiIndex(name string) (int, error) {
	if i := slices.IndexFunc(b.api, func(r config.Route) bool { return r.Label() == name }); i >= 0 {
		return i, nil
	}
	e, ok := b.current.Find(name)
	switch {
	case !ok:
		return -1, &refusedChange{refusedNotFound, fmt.Errorf("no route is named %q", name)}
	case e.Origin == originFile:
		return -1, &refusedChange{refusedConflict, fmt.Errorf("%q is a route of the config file: edit the config file and reload it (SIGHUP)", name)}
	}
	return -1, &refusedChange{refusedConflict, fmt.Errorf("%q is a route %s found: change it where %s finds it", name, e.Origin, e.Origin)}
}

// checkAPI refuses r as an API route (replacing the API's i-th, or none for -1) when it names
// what admin.routes_api.allow does not list or fails a file route's checks, or would not be
// served: its label is another route's, a host it names on a path it takes is a file route's
// or another API route's (served or left out), or it would take players of a file route
// (clash). A discovered route with one of its hosts is left out for it instead.
func (b *Book) checkAPI(r config.Route, replacing int) error {
	if err := checkExtraRoute(b.file.cfg, originAPI, r); err != nil {
		return &refusedChange{refusedInvalid, err}
	}
	for _, f := range b.file.cfg.Routes {
		if err := clash(Entry{Origin: originFile, Route: f}, originAPI, r, b.file.cfg); err != nil {
			return &refusedChange{refusedConflict, err}
		}
	}
	for i, a := range b.api {
		if i == replacing {
			continue
		}
		if err := clash(Entry{Origin: originAPI, Route: a}, originAPI, r, b.file.cfg); err != nil {
			return &refusedChange{refusedConflict, err}
		}
	}
	for source, routes := range b.discovered {
		if slices.ContainsFunc(routes, func(d config.Route) bool { return d.Label() == r.Label() }) {
			return &refusedChange{refusedConflict, &routeClash{origin: source, label: r.Label()}}
		}
	}
	return nil
}

// setAPI serves next as the API's routes and writes them to the state file; when the write
// fails, the relay goes back to the routes it served and the error says so.
func (b *Book) setAPI(next []config.Route) error {
	m, err := b.merge(b.file, next, b.discovered)
	if err != nil {
		return err
	}
	if err := b.serve(m); err != nil {
		return err
	}
	if b.persist != nil {
		if err := b.persist(next); err != nil {
			if undo := b.serve(b.current); undo != nil {
				b.log.Error().Err(undo).Msg("routes API: the routes before a change that was not saved are not served again")
			}
			return fmt.Errorf("not saved, so not made: %w", err)
		}
	}
	b.api = next
	b.commit(m)
	return nil
}
