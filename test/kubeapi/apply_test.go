package kubeapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/test/kubeapi/cluster"
)

// manifestsDir is deploy/kubernetes, from this package's folder.
var manifestsDir = filepath.Join("..", "..", "deploy", "kubernetes")

// fieldManager is who the tests' server-side applies are recorded as.
const fieldManager = "moonbridge-tests"

// manifest is one file of deploy/kubernetes, as written and as an object.
type manifest struct {
	file string
	raw  []byte
	obj  *unstructured.Unstructured
}

// kustomization is the part of a kustomization's (or a Component's) file the tests read.
type kustomization struct {
	Resources []string `json:"resources"`
	Patches   []struct {
		Path string `json:"path"`
	} `json:"patches"`
}

// readKustomization reads dir/kustomization.yaml, which must list resources.
func readKustomization(t *testing.T, dir string) kustomization {
	t.Helper()
	var k kustomization
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err == nil {
		err = yaml.Unmarshal(raw, &k)
	}
	if err != nil || len(k.Resources) == 0 {
		t.Fatalf("%s/kustomization.yaml: %v, resources %v", dir, err, k.Resources)
	}
	return k
}

// readManifests reads the files dir/kustomization.yaml lists as resources, in its order, with
// the TLS Secret filled in as its comment asks (secret.yaml ships empty, which the API server
// warns about).
func readManifests(t *testing.T, dir string) []manifest {
	t.Helper()
	var out []manifest
	for _, file := range readKustomization(t, dir).Resources {
		m := readManifest(t, dir, file)
		if m.obj.GetKind() == "Secret" && m.obj.Object["type"] == "kubernetes.io/tls" {
			m = withCertificate(t, m)
		}
		out = append(out, m)
	}
	return out
}

// readManifest reads dir/file as written and as an object.
func readManifest(t *testing.T, dir, file string) manifest {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return manifest{file: file, raw: raw, obj: obj}
}

// withCertificate is m, a TLS Secret, with a certificate and key made now in its stringData.
func withCertificate(t *testing.T, m manifest) manifest {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: testutil.SelfSigned(t, key, "play.example.net")})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	if err := unstructured.SetNestedStringMap(m.obj.Object, map[string]string{"tls.crt": string(certPEM), "tls.key": string(keyPEM)}, "stringData"); err != nil {
		t.Fatal(err)
	}
	raw, err := yaml.Marshal(m.obj.Object)
	if err != nil {
		t.Fatal(err)
	}
	return manifest{file: m.file, raw: raw, obj: m.obj}
}

// warnings keeps the Warning headers the API server answers with (a deprecated API, a field it
// dropped).
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

// applier applies manifests server-side as kubectl apply --server-side does: a PATCH of type
// application/apply-patch+yaml with a field manager, the resource found through the API's
// discovery, unknown fields refused (fieldValidation=Strict).
type applier struct {
	client   *dynamic.DynamicClient
	mapper   meta.RESTMapper
	warnings *warnings
}

func newApplier(t *testing.T, c *cluster.Cluster) *applier {
	t.Helper()
	cfg := restConfig(c, c.AdminToken)
	a := &applier{warnings: &warnings{}}
	cfg.WarningHandler = a.warnings
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	if a.client, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	return a
}

// apply applies m in namespace ns as the tests' field manager and returns the object the
// server keeps.
func (a *applier) apply(t *testing.T, m manifest, ns string) *unstructured.Unstructured {
	t.Helper()
	return a.applyAs(t, m, ns, fieldManager)
}

// applyAs is apply as the field manager manager.
func (a *applier) applyAs(t *testing.T, m manifest, ns, manager string) *unstructured.Unstructured {
	t.Helper()
	gvk := m.obj.GroupVersionKind()
	mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatalf("%s: %s: %v", m.file, gvk, err)
	}
	resource := a.client.Resource(mapping.Resource)
	var target dynamic.ResourceInterface = resource
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		target = resource.Namespace(ns)
	}
	applied, err := target.Patch(context.Background(), m.obj.GetName(), types.ApplyYAMLPatchType, m.raw,
		metav1.PatchOptions{FieldManager: manager, FieldValidation: metav1.FieldValidationStrict})
	if err != nil {
		t.Fatalf("server-side apply of %s (%s %s): %v", m.file, gvk.Kind, m.obj.GetName(), err)
	}
	return applied
}
