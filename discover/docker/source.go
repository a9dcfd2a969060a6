package docker

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/discover"
	"github.com/moonbridge/moonbridge/routes"
)

// Source follows one engine's labelled containers and reports their routes.
type Source struct {
	Client *Client
	Prefix string        // of the labels: moonbridge reads moonbridge.host
	Resync time.Duration // how often the containers are listed again without an event
	Log    zerolog.Logger
}

// Timings of the engine's calls and of their retries.
const (
	requestTimeout = 10 * time.Second
	// settle gathers a burst of events (a start is create, init and start) into one listing.
	settle     = 100 * time.Millisecond
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
)

// ErrSettings is a Source without a client, a prefix or a positive resync.
var ErrSettings = errors.New("docker source: needs a client, a label prefix and a positive resync")

// Run reports the routes until ctx ends, then returns nil. It subscribes to the engine's
// events, lists the containers, and lists them again after events and every Resync; update
// gets the whole set each time it differs from the last one reported (the first listing is
// always reported). While the engine cannot be reached the last set stays, and Run tries again
// after 1 s, doubling to 30 s.
func (s Source) Run(ctx context.Context, update discover.Update) error {
	if s.Client == nil || s.Prefix == "" || s.Resync <= 0 {
		return ErrSettings
	}
	f := &follower{Source: s, update: update}
	retry := discover.NewBackoff(minBackoff, maxBackoff)
	for {
		err := f.follow(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if f.synced {
			retry.Reset()
			f.synced = false
		}
		s.Log.Warn().Err(err).Dur("retry_in", retry.Next()).Msg("docker: lost the engine; keeping the routes it gave")
		if retry.Wait(ctx); ctx.Err() != nil {
			return nil
		}
	}
}

// follower is one Run's state: what it last reported and which containers' labels it has
// logged as wrong, so that a resync repeats neither.
type follower struct {
	Source
	update   discover.Update
	reported []routes.Route // nil until the first report
	problems map[string]string
	synced   bool // a listing has succeeded since the last failure
}

// follow subscribes to the events, then lists the containers on each event and tick, until
// the stream or a listing fails.
func (f *follower) follow(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The request lasts as long as the stream: only the wait for its answer is bounded.
	timer := time.AfterFunc(requestTimeout, cancel)
	stream, err := f.Client.events(ctx)
	timer.Stop()
	if err != nil {
		return err
	}
	changed, ended := make(chan struct{}, 1), make(chan error, 1)
	go func() {
		for {
			if _, err := stream.next(); err != nil {
				ended <- err
				return
			}
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}()
	defer stream.Close() // ends the reader
	tick := time.NewTicker(f.Resync)
	defer tick.Stop()
	for {
		if err := f.sync(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-ended:
			return err
		case <-tick.C:
		case <-changed:
			time.Sleep(settle)
			select {
			case <-changed: // came during the settle; this listing sees it
			default:
			}
		}
	}
}

// sync lists the containers and reports their routes if they changed.
func (f *follower) sync(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	containers, err := f.Client.labelled(ctx, f.Prefix+"."+LabelHost)
	if err != nil {
		return err
	}
	f.synced = true
	routes := f.routes(containers)
	if f.reported != nil && discover.Same(routes, f.reported) {
		return nil
	}
	f.reported = routes
	names := make([]string, len(routes))
	for i, r := range routes {
		names[i] = r.Name
	}
	f.Log.Info().Strs("routes", names).Msg("docker: routes changed")
	f.update(slices.Clone(routes))
	return nil
}

// routes are the containers' routes by name; a container whose labels are wrong is logged
// once for each new reason. Containers sharing a route label make one route, their backends
// in the order of their names (shared).
func (f *follower) routes(containers []container) []routes.Route {
	containers = slices.Clone(containers)
	slices.SortFunc(containers, func(a, b container) int { return strings.Compare(a.name(), b.name()) })
	found := []routes.Route{}
	problems := map[string]string{}
	for _, c := range containers {
		r, ok, err := routeOf(c, f.Prefix)
		if err == nil && ok {
			found, err = shared(found, r, labels{prefix: f.Prefix, c: c})
		}
		if err != nil {
			problems[c.ID] = err.Error()
			if f.problems[c.ID] != err.Error() {
				f.Log.Warn().Err(err).Msg("docker: container left out of the routes")
			}
		}
	}
	f.problems = problems
	slices.SortFunc(found, func(a, b routes.Route) int { return strings.Compare(a.Name, b.Name) })
	return found
}

// shared adds r to routes: as a route of its own, or, when a route of its name is there
// already (another container with the same route label), as that route's next backend. The
// containers of a shared route must name the same hosts, balance and countries, and none may wake: a
// route wakes one container.
func shared(found []routes.Route, r routes.Route, l labels) ([]routes.Route, error) {
	i := slices.IndexFunc(found, func(have routes.Route) bool { return have.Name == r.Name })
	switch {
	case i < 0:
		return append(found, r), nil
	case r.Wake.On() || found[i].Wake.On():
		return found, l.fail(LabelRoute, "%q is another container's route, and a waking container needs a route of its own", r.Name)
	case !slices.Equal(r.Hosts, found[i].Hosts):
		return found, l.fail(LabelHost, "differs from the hosts of route %q, which it shares", r.Name)
	case r.Balance != found[i].Balance:
		return found, l.fail(LabelBalance, "differs from the balance of route %q, which it shares", r.Name)
	case !slices.Equal(r.Countries.Allow, found[i].Countries.Allow):
		return found, l.fail(LabelCountriesAllow, "differs from the allowed countries of route %q, which it shares", r.Name)
	case !slices.Equal(r.Countries.Deny, found[i].Countries.Deny):
		return found, l.fail(LabelCountriesDeny, "differs from the denied countries of route %q, which it shares", r.Name)
	}
	found[i].Backends = append(slices.Clone(found[i].Backends), r.Backends...)
	return found, nil
}
