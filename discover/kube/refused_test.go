package kube

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// A request the API server refuses with 403 is an error in the log that names the grant the
// account lacks, for the resource, API group and namespace watched (deploy/kubernetes/role.yaml
// is the one to change); any other failure stays a warning.
func TestForbiddenNamesTheMissingGrant(t *testing.T) {
	refused := &APIError{Code: http.StatusForbidden, Reason: "Forbidden",
		Message: `endpointslices.discovery.k8s.io is forbidden: User "x" cannot list resource "endpointslices"`}
	cases := []struct {
		namespace, group, resource string
		want                       []string
	}{
		{"games", "/apis/discovery.k8s.io/v1", "endpointslices",
			[]string{`"level":"error"`, "get, list and watch on endpointslices.discovery.k8s.io in namespace games", "role.yaml", "403"}},
		{"", "/api/v1", "services",
			[]string{`"level":"error"`, "get, list and watch on services in every namespace (a ClusterRole)", "403"}},
	}
	for _, c := range cases {
		var logs strings.Builder
		src, err := New(Settings{API: API{URL: "https://127.0.0.1:1"}, Namespace: c.namespace, RetryMin: 1, RetryMax: 1}, zerolog.New(&logs))
		if err != nil {
			t.Fatal(err)
		}
		w := newWatcher[service](src, c.group, c.resource, nil, nil, nil)
		w.failed(context.Background(), "list", refused)
		for _, part := range c.want {
			if !strings.Contains(logs.String(), part) {
				t.Errorf("%s in %q: no %q in the log line:\n%s", c.resource, c.namespace, part, logs.String())
			}
		}
	}

	var logs strings.Builder
	src, _ := New(Settings{API: API{URL: "https://127.0.0.1:1"}, RetryMin: 1, RetryMax: 1}, zerolog.New(&logs))
	w := newWatcher[service](src, "/api/v1", "services", nil, nil, nil)
	w.failed(context.Background(), "watch", &APIError{Code: http.StatusInternalServerError, Reason: "InternalError"})
	if !strings.Contains(logs.String(), `"level":"warn"`) || strings.Contains(logs.String(), "grant") {
		t.Errorf("a 500 is logged as:\n%s", logs.String())
	}
}
