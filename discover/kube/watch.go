package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/discover"
)

// store keeps one resource's objects. Its methods run on the source's goroutine, which a
// watcher hands them to through its changes channel.
type store[T object] interface {
	replace(items []T) // a whole list
	put(item T)        // ADDED, MODIFIED
	remove(item T)     // DELETED
}

// watcher lists and watches one resource (Services, EndpointSlices) for a store.
type watcher[T object] struct {
	client   *client
	path     string     // /api/v1/services, /api/v1/namespaces/NS/services, ...
	query    url.Values // a labelSelector, or none
	resource string     // for logs
	grant    string     // the RBAC grant its requests need, for a 403's log line
	// refusedSince is the first 403 of the refusals since the last answer; zero: none.
	refusedSince time.Time
	timeouts     timeouts
	retry        discover.Backoff // Reset once a watch delivers an event
	store        store[T]
	changes      chan<- func()
	log          zerolog.Logger
}

// timeouts bound the requests: a page of a list, and a watch (which the server ends first, at
// its timeoutSeconds; the client's bound, a little later, catches a silent connection).
type timeouts struct {
	list  time.Duration
	watch time.Duration
}

// listPage is how many objects a list asks for at once.
const listPage = 500

// run lists and watches until ctx ends.
func (w *watcher[T]) run(ctx context.Context) {
	for ctx.Err() == nil {
		rv, err := w.list(ctx)
		if err != nil {
			w.failed(ctx, "list", err)
			continue
		}
		w.watchFrom(ctx, rv)
	}
}

// watchFrom watches from resourceVersion rv, again each time a stream ends, until ctx ends or
// the server says rv is gone (410), when the caller lists again.
func (w *watcher[T]) watchFrom(ctx context.Context, rv string) {
	for ctx.Err() == nil {
		var err error
		rv, err = w.watch(ctx, rv)
		switch {
		case gone(err):
			w.log.Info().Str("resource", w.resource).Err(err).Msg("kubernetes watch: resourceVersion expired, listing again")
			w.retry.Wait(ctx)
			return
		case err != nil:
			w.failed(ctx, "watch", err)
		default:
			w.log.Debug().Str("resource", w.resource).Msg("kubernetes watch ended; watching again")
			w.retry.Wait(ctx)
		}
	}
}

func (w *watcher[T]) failed(ctx context.Context, what string, err error) {
	if ctx.Err() != nil {
		return
	}
	if forbidden(err) {
		w.refused(what, err)
		w.retry.Wait(ctx)
		return
	}
	w.log.Warn().Err(err).Str("resource", w.resource).Dur("retry_in", w.retry.Next()).Msgf("kubernetes %s failed", what)
	w.retry.Wait(ctx)
}

// list reads every page and hands the whole list to the store; it returns its resourceVersion.
func (w *watcher[T]) list(ctx context.Context) (string, error) {
	var items []T
	query := w.with("limit", strconv.Itoa(listPage))
	for {
		var page list[T]
		if err := w.getJSON(ctx, query, &page); err != nil {
			return "", err
		}
		items = append(items, page.Items...)
		if page.Metadata.Continue == "" {
			w.log.Debug().Str("resource", w.resource).Int("objects", len(items)).Str("resource_version", page.Metadata.ResourceVersion).Msg("kubernetes list")
			return page.Metadata.ResourceVersion, w.hand(ctx, func() { w.store.replace(items) })
		}
		query.Set("continue", page.Metadata.Continue)
	}
}

func (w *watcher[T]) getJSON(ctx context.Context, query url.Values, into any) error {
	ctx, cancel := context.WithTimeout(ctx, w.timeouts.list)
	defer cancel()
	body, err := w.client.get(ctx, w.path, query)
	if err != nil {
		return err
	}
	w.answered()
	defer body.Close()
	if err := json.NewDecoder(body).Decode(into); err != nil {
		return fmt.Errorf("kubernetes list of %s: %w", w.resource, err)
	}
	return nil
}

// watch reads one watch stream from rv to its end and returns the last resourceVersion seen.
// A stream that ends (the server's timeoutSeconds, or the client's bound) is no error.
func (w *watcher[T]) watch(ctx context.Context, rv string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeouts.watch+w.timeouts.watch/10)
	defer cancel()
	query := w.with("watch", "1")
	query.Set("resourceVersion", rv)
	query.Set("allowWatchBookmarks", "true")
	query.Set("timeoutSeconds", strconv.Itoa(int(w.timeouts.watch/time.Second)))
	body, err := w.client.get(ctx, w.path, query)
	if err != nil {
		return rv, err
	}
	w.answered()
	defer body.Close()
	events := json.NewDecoder(body)
	for {
		var ev watchEvent
		if err := events.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return rv, nil
			}
			return rv, fmt.Errorf("kubernetes watch of %s: %w", w.resource, err)
		}
		if rv, err = w.apply(ctx, ev, rv); err != nil {
			return rv, err
		}
		w.retry.Reset() // the stream works
	}
}

// apply hands one event's change to the store and returns the resourceVersion to go on from.
func (w *watcher[T]) apply(ctx context.Context, ev watchEvent, rv string) (string, error) {
	if ev.Type == eventError {
		var s status
		if err := json.Unmarshal(ev.Object, &s); err != nil {
			return rv, fmt.Errorf("kubernetes watch of %s: an ERROR event without a Status: %w", w.resource, err)
		}
		return rv, &APIError{Code: s.Code, Reason: s.Reason, Message: s.Message}
	}
	var obj T
	if err := json.Unmarshal(ev.Object, &obj); err != nil {
		return rv, fmt.Errorf("kubernetes watch of %s: %s event: %w", w.resource, ev.Type, err)
	}
	next := obj.meta().ResourceVersion
	switch ev.Type {
	case eventBookmark:
		return next, nil
	case eventAdded, eventModified:
		return next, w.hand(ctx, func() { w.store.put(obj) })
	case eventDeleted:
		return next, w.hand(ctx, func() { w.store.remove(obj) })
	}
	return rv, fmt.Errorf("kubernetes watch of %s: unknown event type %q", w.resource, ev.Type)
}

// hand gives a change to the source's goroutine.
func (w *watcher[T]) hand(ctx context.Context, change func()) error {
	select {
	case w.changes <- change:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// with is the watcher's query with one more parameter.
func (w *watcher[T]) with(key, value string) url.Values {
	q := url.Values{}
	for k, v := range w.query {
		q[k] = v
	}
	q.Set(key, value)
	return q
}
