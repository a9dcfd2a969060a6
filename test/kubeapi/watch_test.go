package kubeapi

import (
	"context"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/moonbridge/moonbridge/discover/kube"
	"github.com/moonbridge/moonbridge/routes"
	"github.com/moonbridge/moonbridge/test/kubeapi/cluster"
)

// quickRetry keeps the source's pause between failed requests short, so that a test does not
// wait out the 30-second default after the API server was away.
var quickRetry = kube.Settings{RetryMin: 200 * time.Millisecond, RetryMax: 2 * time.Second}

// A watch the server ends at the timeoutSeconds the source asked for is taken up again from its
// resourceVersion: a Service annotated after several such ends still becomes a route.
func TestWatchEndedByTheServerIsResumed(t *testing.T) {
	settings := quickRetry
	settings.WatchTimeout = time.Second
	client, ns, w := watchNamespace(t, needCluster(t), "watch-timeout", settings, readServices)
	w.waitFor(t, "first set", func(map[string]routes.Route) bool { return true })
	w.waitLog(t, "kubernetes watch ended; watching again", `"resource":"services"`)
	time.Sleep(2 * settings.WatchTimeout) // more ends
	createService(t, client, minecraftService(ns, "late", map[string]string{hostAnnotation: "late.example.net"}))
	w.waitFor(t, "the route of a Service annotated after the watch ended", backendsAre("kube/"+ns+"/late", "late."+ns+".svc:25565"))
}

// When kube-apiserver restarts, every watch on it ends and its new watch cache no longer has
// the resourceVersion the source was at: the source lists again and goes on, and a Service
// created while it waits to reconnect becomes a route.
func TestWatchResumedAfterTheAPIServerRestarts(t *testing.T) {
	c := needCluster(t)
	client, ns, w := watchNamespace(t, c, "apiserver-restart", quickRetry, readServices)
	createService(t, client, minecraftService(ns, "before", map[string]string{hostAnnotation: "before.example.net"}))
	w.waitFor(t, "the route made before the restart", backendsAre("kube/"+ns+"/before", "before."+ns+".svc:25565"))

	if err := c.RestartAPIServer(context.Background()); err != nil {
		t.Fatal(err)
	}
	createService(t, client, minecraftService(ns, "after", map[string]string{hostAnnotation: "after.example.net"}))
	w.waitFor(t, "the route of a Service created after the restart", backendsAre("kube/"+ns+"/after", "after."+ns+".svc:25565"))
	w.waitFor(t, "the route made before the restart, still there", backendsAre("kube/"+ns+"/before", "before."+ns+".svc:25565"))
	// The restarted server refuses requests (403) until it has loaded its RBAC rules: no
	// missing grant to report.
	if hasLine(w.logs.String(), `"level":"error"`) {
		t.Errorf("an error logged across the restart:\n%s", w.logs.String())
	}
}

// A watch from a resourceVersion etcd has compacted away is answered 410 Gone (with the watch
// cache off, the API server passes the watch to etcd, which refuses it): the source lists again
// and goes on. This cluster is the test's own, since the shared one keeps its watch cache on.
func TestWatchAnsweredGoneListsAgain(t *testing.T) {
	needCluster(t)
	dir := t.TempDir()
	c, err := cluster.Start(context.Background(), cluster.Options{BinDir: os.Getenv(binEnv), Dir: dir,
		Users: []cluster.User{watcher}, APIServerFlags: []string{"--watch-cache=false"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	settings := quickRetry
	settings.WatchTimeout = 2 * time.Second
	client, ns, w := watchNamespace(t, c, "compacted", settings, readServices)
	createService(t, client, minecraftService(ns, "first", map[string]string{hostAnnotation: "first.example.net"}))
	w.waitFor(t, "the first route", backendsAre("kube/"+ns+"/first", "first."+ns+".svc:25565"))

	// The source is now at the first Service's resourceVersion RV and its next watch (at its
	// timeout) starts at RV+1. Two more writes move etcd past that, and compacting there
	// leaves the watch nothing to start from (etcd keeps the compaction's own revision).
	writeSomething(t, client, ns, "unrelated-1")
	writeSomething(t, client, ns, "unrelated-2")
	if _, err := c.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.waitLog(t, "resourceVersion expired, listing again", `"resource":"services"`, "410")
	createService(t, client, minecraftService(ns, "second", map[string]string{hostAnnotation: "second.example.net"}))
	w.waitFor(t, "the route of a Service created after the 410", backendsAre("kube/"+ns+"/second", "second."+ns+".svc:25565"))
}

// writeSomething writes an object discovery does not watch: etcd's revision moves on.
func writeSomething(t *testing.T, client kubernetes.Interface, ns, name string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"a": "b"}}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
