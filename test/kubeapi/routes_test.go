package kubeapi

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/moonbridge/moonbridge/discover/kube"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/routes"
	"github.com/moonbridge/moonbridge/test/kubeapi/cluster"
)

// routeBound is how long a change may take to reach the routes: the source's own pause after
// a failed request grows to seconds, and the machine is shared.
const routeBound = 60 * time.Second

// watchedRoutes is a discover/kube Source running against a cluster as one user: the last set
// of routes it handed over, and its log.
type watchedRoutes struct {
	mu     sync.Mutex
	routes []routes.Route
	sets   int // how many sets were handed over
	logs   testutil.SyncBuffer
}

// watchNamespace makes namespace name on c, gives the watcher user a Role there with rules, and
// runs a Source over it as that user with settings; it returns the admin's client, the
// namespace and the Source's routes.
func watchNamespace(t *testing.T, c *cluster.Cluster, name string, settings kube.Settings, rules ...rbacv1.PolicyRule) (*kubernetes.Clientset, string, *watchedRoutes) {
	t.Helper()
	client := admin(t, c)
	ns := namespace(t, client, name)
	grant(t, client, ns, watcher.Name, rules...)
	return client, ns, watchRoutes(t, c, watcher.Token, ns, settings)
}

// watchRoutes runs a Source over namespace ns as the user with token, with settings' other
// fields as given, until the test ends.
func watchRoutes(t *testing.T, c *cluster.Cluster, token, ns string, settings kube.Settings) *watchedRoutes {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	settings.API = kube.API{URL: c.URL, TokenFile: tokenFile, CAFile: c.CAFile}
	settings.Namespace, settings.AnnotationPrefix = ns, "moonbridge.io"
	w := &watchedRoutes{}
	src, err := kube.New(settings, zerolog.New(&w.logs).Level(zerolog.DebugLevel).With().Timestamp().Logger())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = src.Run(ctx, func(found []routes.Route) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.routes, w.sets = found, w.sets+1
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(testutil.WaitBound):
			t.Error("the source did not stop")
		}
	})
	return w
}

// now is the last set handed over and whether one was.
func (w *watchedRoutes) now() ([]routes.Route, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.routes), w.sets > 0
}

// waitFor waits until the routes hold what cond says, and fails the test with what, the routes
// and the source's log after routeBound.
func (w *watchedRoutes) waitFor(t *testing.T, what string, cond func(byName map[string]routes.Route) bool) {
	t.Helper()
	ok := testutil.Within(routeBound, func() bool {
		found, handed := w.now()
		return handed && cond(byName(found))
	})
	if !ok {
		found, _ := w.now()
		t.Fatalf("after %v: no %s; routes %+v; the source's log:\n%s", routeBound, what, found, w.logs.String())
	}
}

// waitLog waits until the source's log has a line with every one of parts.
func (w *watchedRoutes) waitLog(t *testing.T, parts ...string) {
	t.Helper()
	if !testutil.Within(routeBound, func() bool { return hasLine(w.logs.String(), parts...) }) {
		t.Fatalf("after %v no log line with %q; the source's log:\n%s", routeBound, parts, w.logs.String())
	}
}

func hasLine(log string, parts ...string) bool {
	for line := range strings.SplitSeq(log, "\n") {
		if containsAll(line, parts) {
			return true
		}
	}
	return false
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func byName(found []routes.Route) map[string]routes.Route {
	m := make(map[string]routes.Route, len(found))
	for _, r := range found {
		m[r.Name] = r
	}
	return m
}

// backendsAre is a condition: route name exists with exactly these backends, in any order.
func backendsAre(name string, want ...string) func(map[string]routes.Route) bool {
	return func(found map[string]routes.Route) bool {
		r, ok := found[name]
		if !ok {
			return false
		}
		got := slices.Clone(r.Backends)
		slices.Sort(got)
		want := slices.Sorted(slices.Values(want))
		return slices.Equal(got, want)
	}
}

// absent is a condition: no route name.
func absent(name string) func(map[string]routes.Route) bool {
	return func(found map[string]routes.Route) bool { _, ok := found[name]; return !ok }
}
