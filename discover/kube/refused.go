package kube

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// refusedError is how long 403s go on before they are logged as errors rather than warnings: an
// API server that has just started (a control plane's rolling upgrade) refuses every request
// until it has loaded its RBAC rules, which takes seconds; a grant that is missing lasts.
const refusedError = 15 * time.Second

// refused logs a 403 with the grant the account needs.
func (w *watcher[T]) refused(what string, err error) {
	if w.refusedSince.IsZero() {
		w.refusedSince = time.Now()
	}
	ev, since := w.log.Warn(), time.Since(w.refusedSince)
	if since >= refusedError {
		ev = w.log.Error()
	}
	ev.Err(err).Str("resource", w.resource).Dur("refused_for", since).Dur("retry_in", w.retry.Next()).
		Msgf("kubernetes %s refused: moonbridge's account needs %s (deploy/kubernetes/role.yaml grants it)", what, w.grant)
}

// answered ends a run of refusals: the API server answered a request with 200.
func (w *watcher[T]) answered() { w.refusedSince = time.Time{} }

// forbidden says whether err is the API server's 403: the account lacks a grant (RBAC), or the
// API server has just started and not loaded its RBAC rules yet.
func forbidden(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Code == http.StatusForbidden
}

// grantNeeded is the RBAC grant a watcher's requests need, as a log line names it: the verbs,
// the resource as RBAC spells it (RESOURCE.GROUP, the core group's without), and where.
func grantNeeded(groupPath, resource, namespace string) string {
	if group, ok := strings.CutPrefix(groupPath, "/apis/"); ok {
		group, _, _ = strings.Cut(group, "/")
		resource += "." + group
	}
	where := "in every namespace (a ClusterRole)"
	if namespace != "" {
		where = "in namespace " + namespace
	}
	return "get, list and watch on " + resource + " " + where
}
