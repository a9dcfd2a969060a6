package kubeapi

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// manifestNamespace is where the manifests are applied; manifestSA's token is its
// ServiceAccount's.
const manifestNamespace = "moonbridge"

// Every file kustomization.yaml lists is accepted by a real API server through server-side
// apply, with unknown fields refused and no warning; applying them again changes nothing (no
// field the server keeps differently from the file). Then discovery, as the manifests'
// ServiceAccount with only what role.yaml grants, turns an annotated Service in endpoints mode
// into a route to its EndpointSlice's pods.
func TestManifestsApplyServerSideAndGrantDiscovery(t *testing.T) {
	c := needCluster(t)
	client := admin(t, c)
	namespace(t, client, manifestNamespace)
	a := newApplier(t, c)
	manifests := readManifests(t, manifestsDir)
	versions := map[string]string{}
	for _, m := range manifests {
		versions[m.file] = a.apply(t, m, manifestNamespace).GetResourceVersion()
	}
	for _, m := range manifests {
		if again := a.apply(t, m, manifestNamespace).GetResourceVersion(); again != versions[m.file] {
			t.Errorf("applying %s again changed it: resourceVersion %s, then %s", m.file, versions[m.file], again)
		}
	}
	if w := a.warnings.take(); len(w) > 0 {
		t.Errorf("the API server warned: %q", w)
	}

	w := watchRoutes(t, c, manifestSA.Token, manifestNamespace, quickRetry)
	createService(t, client, minecraftService(manifestNamespace, "survival", map[string]string{
		hostAnnotation: "survival.example.net", backendsAnnotation: "endpoints"}))
	slice := endpointSlice(manifestNamespace, "survival-1", "survival", endpoint{"10.2.0.7", true})
	if _, err := client.DiscoveryV1().EndpointSlices(manifestNamespace).Create(context.Background(), slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "the route to the slice's pod, read with role.yaml's grant", backendsAre("kube/"+manifestNamespace+"/survival", "10.2.0.7:25566"))
	if hasLine(w.logs.String(), "403") {
		t.Errorf("discovery was refused something with role.yaml's grant:\n%s", w.logs.String())
	}
}

// redisComponentDir is deploy/kubernetes's redis component.
var redisComponentDir = filepath.Join(manifestsDir, "redis")

// Issue 42: the redis component's objects are accepted by server-side apply beside the
// manifests, with unknown fields refused and no warning, and its patch, applied by a field
// manager of its own, merges into moonbridge's one container: its env beside the container's
// own, the mount of the Redis password's Secret beside the other Secrets'. No kubelet runs here: no Redis starts and the NetworkPolicy is not enforced; the objects'
// validity and the patch's merge are what this tests.
func TestRedisComponentAppliesServerSide(t *testing.T) {
	c := needCluster(t)
	client := admin(t, c)
	ns := namespace(t, client, "moonbridge-redis")
	a := newApplier(t, c)
	for _, m := range slices.Concat(readManifests(t, manifestsDir), readManifests(t, redisComponentDir)) {
		a.apply(t, m, ns)
	}
	patches := readKustomization(t, redisComponentDir).Patches
	if len(patches) != 1 {
		t.Fatalf("the redis component has patches %v, want one", patches)
	}
	a.applyAs(t, readManifest(t, redisComponentDir, patches[0].Path), ns, "moonbridge-redis-component")
	if w := a.warnings.take(); len(w) > 0 {
		t.Errorf("the API server warned: %q", w)
	}
	d, err := client.AppsV1().Deployments(ns).Get(context.Background(), "moonbridge", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	containers := d.Spec.Template.Spec.Containers
	if len(containers) != 1 {
		t.Fatalf("after the patch the Deployment has %d containers, want moonbridge's alone", len(containers))
	}
	env := containers[0].Env
	for _, want := range []string{"POD_NAMESPACE", "MOONBRIDGE_REPLICAS", "MOONBRIDGE_REDIS_PASSWORD_FILE"} {
		if !slices.ContainsFunc(env, func(e corev1.EnvVar) bool { return e.Name == want }) {
			t.Errorf("after the patch the container's env is %v, without %s", env, want)
		}
	}
	checkSecretMounted(t, d, "moonbridge-redis", "/etc/moonbridge/redis")
	checkSecretMounted(t, d, "moonbridge-admin", "/etc/moonbridge/admin")
	if _, err := client.CoreV1().Secrets(ns).Get(context.Background(), "moonbridge-redis", metav1.GetOptions{}); err != nil {
		t.Errorf("the component's Secret: %v", err)
	}
}

// checkSecretMounted: d's container mounts Secret secret at path, read-only, as a directory of
// group-readable files.
func checkSecretMounted(t *testing.T, d *appsv1.Deployment, secret, path string) {
	t.Helper()
	pod := d.Spec.Template.Spec
	for _, v := range pod.Volumes {
		if v.Secret == nil || v.Secret.SecretName != secret {
			continue
		}
		for _, m := range pod.Containers[0].VolumeMounts {
			if m.Name == v.Name && m.MountPath == path && m.ReadOnly && m.SubPath == "" && v.Secret.DefaultMode != nil && *v.Secret.DefaultMode == 0o440 {
				return
			}
		}
	}
	t.Errorf("Secret %s is not mounted read-only at %s with mode 0440: volumes %v, mounts %v", secret, path, pod.Volumes, pod.Containers[0].VolumeMounts)
}
