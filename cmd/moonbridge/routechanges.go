package main

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

// list is every route of the book, in merge order.
func (b *routeBook) list() []bookEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.current.entries)
}

// find is the route labelled name; the first in merge order when several are.
func (b *routeBook) find(name string) (bookEntry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.current.find(name)
}

func (m bookMerge) find(name string) (bookEntry, bool) {
	i := slices.IndexFunc(m.entries, func(e bookEntry) bool { return e.route.Label() == name })
	if i < 0 {
		return bookEntry{}, false
	}
	return m.entries[i], true
}

// add serves r as the API's newest route.
func (b *routeBook) add(r config.Route) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkAPI(r, -1); err != nil {
		return err
	}
	return b.setAPI(append(slices.Clone(b.api), r))
}

// change replaces the API's route labelled name with r, which must be labelled name too; it
// keeps its place among the API's routes.
func (b *routeBook) change(name string, r config.Route) error {
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

// remove takes the API's route labelled name away.
func (b *routeBook) remove(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	i, err := b.apiIndex(name)
	if err != nil {
		return err
	}
	return b.setAPI(slices.Delete(slices.Clone(b.api), i, i+1))
}

// apiIndex is the place of the API's route labelled name.
func (b *routeBook) apiIndex(name string) (int, error) {
	if i := slices.IndexFunc(b.api, func(r config.Route) bool { return r.Label() == name }); i >= 0 {
		return i, nil
	}
	e, ok := b.current.find(name)
	switch {
	case !ok:
		return -1, &refusedChange{refusedNotFound, fmt.Errorf("no route is named %q", name)}
	case e.origin == originFile:
		return -1, &refusedChange{refusedConflict, fmt.Errorf("%q is a route of the config file: edit the config file and reload it (SIGHUP)", name)}
	}
	return -1, &refusedChange{refusedConflict, fmt.Errorf("%q is a route %s found: change it where %s finds it", name, e.origin, e.origin)}
}

// checkAPI refuses r as an API route (replacing the API's i-th, or none for -1) when it names
// what admin.routes_api.allow does not list or fails a file route's checks, or would not be
// served: its label is another route's, a host it names on a path it takes is a file route's
// or another API route's (served or left out), or it would take players of a file route
// (clash). A discovered route with one of its hosts is left out for it instead.
func (b *routeBook) checkAPI(r config.Route, replacing int) error {
	if err := checkExtraRoute(b.file.cfg, originAPI, r); err != nil {
		return &refusedChange{refusedInvalid, err}
	}
	for _, f := range b.file.cfg.Routes {
		if err := clash(bookEntry{origin: originFile, route: f}, originAPI, r, b.file.cfg); err != nil {
			return &refusedChange{refusedConflict, err}
		}
	}
	for i, a := range b.api {
		if i == replacing {
			continue
		}
		if err := clash(bookEntry{origin: originAPI, route: a}, originAPI, r, b.file.cfg); err != nil {
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
func (b *routeBook) setAPI(next []config.Route) error {
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
