package kube

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/discover"
	"github.com/moonbridge/moonbridge/routes"
)

// Settings say which API server to watch, where, and by which annotations.
type Settings struct {
	API API
	// Namespace is the one namespace watched; "": every namespace (which needs a ClusterRole).
	Namespace string
	// AnnotationPrefix goes before /host, /port and /backends, e.g. moonbridge.io.
	AnnotationPrefix string
	// ExternalName lets an annotated ExternalName Service be a route; false leaves those out
	// with a log line, since their backend is any DNS name the Service's author wrote.
	ExternalName bool
	// RetryMin and RetryMax bound the pause before a list or watch is tried again; 0: 500ms
	// and 30s.
	RetryMin, RetryMax time.Duration
	// WatchTimeout is how long the server is asked to keep one watch open; 0: 5 minutes.
	WatchTimeout time.Duration
}

// The defaults of Settings' zero durations, and of a list request.
const (
	defaultRetryMin     = 500 * time.Millisecond
	defaultRetryMax     = 30 * time.Second
	defaultWatchTimeout = 5 * time.Minute
	listTimeout         = time.Minute
)

// Source is one API server's annotated Services as routes.
type Source struct {
	settings Settings
	client   *client
	log      zerolog.Logger
}

// New checks the API's URL and reads its CA file; it sends nothing yet.
func New(s Settings, log zerolog.Logger) (*Source, error) {
	c, err := newClient(s.API)
	if err != nil {
		return nil, err
	}
	s.RetryMin = orDefault(s.RetryMin, defaultRetryMin)
	s.RetryMax = orDefault(s.RetryMax, defaultRetryMax)
	s.WatchTimeout = orDefault(s.WatchTimeout, defaultWatchTimeout)
	return &Source{settings: s, client: c, log: log}, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Run watches until ctx ends, then returns ctx's error. It calls update with the whole set of
// routes once the first list of Services arrived, and after each change of the set. Only the
// EndpointSlices of the Services that ask for endpoints are watched, from the moment one asks,
// so a source whose Services never do needs no permission on them.
func (s *Source) Run(ctx context.Context, update discover.Update) error {
	ctx, cancel := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer func() {
		cancel()
		running.Wait()
		s.client.close()
	}()
	changes := make(chan func())
	svcs, endpoints := newServiceStore(s.settings.AnnotationPrefix, s.settings.ExternalName, s.log), newSliceStore()
	running.Go(func() { s.servicesWatcher(svcs, changes).run(ctx) })
	sliceWatch := &sliceWatch{source: s, store: endpoints, changes: changes, running: &running}
	var last []routes.Route
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case change := <-changes:
			change()
		}
		sliceWatch.follow(ctx, svcs.endpointServices())
		if !svcs.synced {
			continue
		}
		if now := routesOf(svcs, endpoints); last == nil || !discover.Same(now, last) {
			s.log.Info().Int("routes", len(now)).Msg("kubernetes routes changed")
			update(now)
			last = now
		}
	}
}

func (s *Source) servicesWatcher(st store[service], changes chan<- func()) *watcher[service] {
	return newWatcher(s, "/api/v1", "services", nil, st, changes)
}

// slicesWatcher watches the EndpointSlices of the Services named (in any namespace watched): the
// API server sends those alone, not every slice in scope.
func (s *Source) slicesWatcher(st store[endpointSlice], names []string, changes chan<- func()) *watcher[endpointSlice] {
	selector := url.Values{"labelSelector": {serviceNameLabel + " in (" + strings.Join(names, ",") + ")"}}
	return newWatcher(s, "/apis/discovery.k8s.io/v1", "endpointslices", selector, st, changes)
}

// sliceWatch is the one watch of the EndpointSlices of the Services in endpoints mode, whose
// label selector names them: it starts again, with a new list, when that set changes (a
// Service annotated, deleted, or turned to or from endpoints), which is rare beside the slices'
// own changes. One watch per Service would make as many streams; one watch of every labelled
// slice would have the API server send every pod's change in scope, to be dropped here.
type sliceWatch struct {
	source   *Source
	store    *sliceStore
	changes  chan<- func()
	running  *sync.WaitGroup
	services []string           // followed: NAMESPACE/NAME, sorted
	stop     context.CancelFunc // the running watch's; nil while none runs
}

// follow watches the slices of services (NAMESPACE/NAME, sorted), unless it does already.
func (w *sliceWatch) follow(ctx context.Context, services []string) {
	if slices.Equal(services, w.services) {
		return
	}
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.services = services
	w.store.follow(services)
	if len(services) == 0 {
		return
	}
	ctx, w.stop = context.WithCancel(ctx)
	watcher := w.source.slicesWatcher(w.store.view(), serviceNames(services), w.changes)
	w.running.Go(func() { watcher.run(ctx) })
}

// serviceNames are the NAMEs of NAMESPACE/NAME keys, sorted, each once.
func serviceNames(keys []string) []string {
	names := make([]string, len(keys))
	for i, key := range keys {
		_, names[i], _ = strings.Cut(key, "/")
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func newWatcher[T object](s *Source, group, resource string, query url.Values, st store[T], changes chan<- func()) *watcher[T] {
	path := group + "/" + resource
	if ns := s.settings.Namespace; ns != "" {
		path = group + "/namespaces/" + url.PathEscape(ns) + "/" + resource
	}
	return &watcher[T]{
		client: s.client, path: path, query: query, resource: resource,
		grant:    grantNeeded(group, resource, s.settings.Namespace),
		timeouts: timeouts{list: listTimeout, watch: s.settings.WatchTimeout},
		retry:    discover.NewBackoff(s.settings.RetryMin, s.settings.RetryMax),
		store:    st, changes: changes, log: s.log,
	}
}
