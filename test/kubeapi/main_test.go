package kubeapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/moonbridge/moonbridge/test/kubeapi/cluster"
)

// binEnv names the folder with kube-apiserver and etcd: what scripts/kube-binaries.sh prints.
const binEnv = "MOONBRIDGE_KUBE_BIN"

// The static tokens' identities the tests act as, besides the cluster's admin.
var (
	// manifestSA is deploy/kubernetes's ServiceAccount in the namespace the manifests are
	// applied to: its grants are role.yaml's, through rolebinding.yaml.
	manifestSA = cluster.ServiceAccount("token-manifest-sa", manifestNamespace, "moonbridge")
	// watcher is given, per test, a Role of the test's choosing.
	watcher = cluster.User{Token: "token-watcher", Name: "moonbridge-watcher"}
)

// shared is the one cluster every test uses, started by TestMain; nil when binEnv is unset.
var shared *cluster.Cluster

// scratch is TestMain's folder: the shared cluster's files, a proxy binary built for the tests.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bin := os.Getenv(binEnv)
	if bin == "" {
		return m.Run() // each test skips, naming binEnv
	}
	var err error
	if scratch, err = os.MkdirTemp("", "kubeapi-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(scratch)
	dir := filepath.Join(scratch, "cluster")
	if err := os.Mkdir(dir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	started := time.Now()
	shared, err = cluster.Start(context.Background(), cluster.Options{BinDir: bin, Dir: dir,
		Users: []cluster.User{manifestSA, watcher}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubeapi: the cluster did not start:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "kubeapi: etcd and kube-apiserver ready at %s in %v\n", shared.URL, time.Since(started).Round(time.Millisecond))
	code := m.Run()
	if err := shared.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "kubeapi: stopping the cluster:", err)
		code = 1
	}
	return code
}

// needCluster is the shared cluster, or skips the test when the servers were not built.
func needCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	if shared == nil {
		t.Skipf("%s is not set: `make test-kube` builds kube-apiserver and etcd and runs these tests", binEnv)
	}
	return shared
}

// restConfig is how client-go reaches c with token.
func restConfig(c *cluster.Cluster, token string) *rest.Config {
	return &rest.Config{Host: c.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAFile: c.CAFile},
		Timeout: 30 * time.Second}
}

// admin is a typed client allowed everything.
func admin(t *testing.T, c *cluster.Cluster) *kubernetes.Clientset {
	t.Helper()
	client, err := kubernetes.NewForConfig(restConfig(c, c.AdminToken))
	if err != nil {
		t.Fatal(err)
	}
	return client
}
