package kube

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// refusedWatcher is a watcher of resource in group over namespace, logging into logs.
func refusedWatcher(t *testing.T, namespace, group, resource string, logs *strings.Builder) *watcher[service] {
	t.Helper()
	src, err := New(Settings{API: API{URL: "https://127.0.0.1:1"}, Namespace: namespace, RetryMin: 1, RetryMax: 1}, zerolog.New(logs))
	if err != nil {
		t.Fatal(err)
	}
	return newWatcher[service](src, group, resource, nil, nil, nil)
}

var refused = &APIError{Code: http.StatusForbidden, Reason: "Forbidden",
	Message: `endpointslices.discovery.k8s.io is forbidden: User "x" cannot list resource "endpointslices"`}

// A request the API server refuses with 403 is logged with the grant the account lacks, for the
// resource, API group and namespace watched (deploy/kubernetes/role.yaml is the one to change):
// as a warning at first, since an API server that has just started refuses everything until it
// has loaded its RBAC rules, and as an error once the refusals have lasted refusedError.
func TestForbiddenNamesTheMissingGrant(t *testing.T) {
	cases := []struct {
		namespace, group, resource, grant string
	}{
		{"games", "/apis/discovery.k8s.io/v1", "endpointslices", "get, list and watch on endpointslices.discovery.k8s.io in namespace games"},
		{"", "/api/v1", "services", "get, list and watch on services in every namespace (a ClusterRole)"},
	}
	for _, c := range cases {
		var logs strings.Builder
		w := refusedWatcher(t, c.namespace, c.group, c.resource, &logs)
		w.failed(context.Background(), "list", refused)
		first := logs.String()
		if !strings.Contains(first, `"level":"warn"`) || !strings.Contains(first, c.grant) || !strings.Contains(first, "role.yaml") {
			t.Errorf("%s in %q, the first 403 is logged as:\n%s", c.resource, c.namespace, first)
		}
		w.refusedSince = time.Now().Add(-refusedError)
		w.failed(context.Background(), "list", refused)
		if last := strings.TrimPrefix(logs.String(), first); !strings.Contains(last, `"level":"error"`) || !strings.Contains(last, c.grant) {
			t.Errorf("%s in %q, a 403 after %v of them is logged as:\n%s", c.resource, c.namespace, refusedError, last)
		}
	}
}

// A success ends a run of refusals: the next 403 is a warning again. Any other failure is a
// warning without a grant.
func TestRefusalsEndWithASuccess(t *testing.T) {
	var logs strings.Builder
	w := refusedWatcher(t, "games", "/api/v1", "services", &logs)
	w.failed(context.Background(), "watch", refused)
	w.refusedSince = time.Now().Add(-refusedError)
	w.answered()
	w.failed(context.Background(), "watch", refused)
	if strings.Contains(logs.String(), `"level":"error"`) {
		t.Errorf("a 403 after a success is logged as an error:\n%s", logs.String())
	}

	logs.Reset()
	w.failed(context.Background(), "watch", &APIError{Code: http.StatusInternalServerError, Reason: "InternalError"})
	if !strings.Contains(logs.String(), `"level":"warn"`) || strings.Contains(logs.String(), "grant") {
		t.Errorf("a 500 is logged as:\n%s", logs.String())
	}
}
