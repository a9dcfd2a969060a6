package kube

import (
	"context"
	"net/url"
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
// routes once the first list of Services arrived, and after each change of the set. The
// EndpointSlices are watched from the moment a Service asks for endpoints, so a source whose
// Services never do needs no permission on them.
func (s *Source) Run(ctx context.Context, update discover.Update) error {
	ctx, cancel := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer func() {
		cancel()
		running.Wait()
		s.client.close()
	}()
	changes := make(chan func())
	svcs, endpoints := newServiceStore(s.settings.AnnotationPrefix, s.log), newSliceStore()
	running.Go(func() { s.servicesWatcher(svcs, changes).run(ctx) })
	watchingSlices := false
	var last []routes.Route
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case change := <-changes:
			change()
		}
		if !watchingSlices && svcs.wantEndpoints() {
			running.Go(func() { s.slicesWatcher(endpoints, changes).run(ctx) })
			watchingSlices = true
		}
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

func (s *Source) slicesWatcher(st store[endpointSlice], changes chan<- func()) *watcher[endpointSlice] {
	// Only the slices a Service's controller made carry the label; the others are no route's.
	selector := url.Values{"labelSelector": {serviceNameLabel}}
	return newWatcher(s, "/apis/discovery.k8s.io/v1", "endpointslices", selector, st, changes)
}

func newWatcher[T object](s *Source, group, resource string, query url.Values, st store[T], changes chan<- func()) *watcher[T] {
	path := group + "/" + resource
	if ns := s.settings.Namespace; ns != "" {
		path = group + "/namespaces/" + url.PathEscape(ns) + "/" + resource
	}
	return &watcher[T]{
		client: s.client, path: path, query: query, resource: resource,
		timeouts: timeouts{list: listTimeout, watch: s.settings.WatchTimeout},
		retry:    discover.NewBackoff(s.settings.RetryMin, s.settings.RetryMax),
		store:    st, changes: changes, log: s.log,
	}
}
