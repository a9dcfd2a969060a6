package kubernetes

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/yaml"
)

// Redis is the redis component (deploy/kubernetes/redis): a Redis for the replicas' shared
// state, with its Service, NetworkPolicy and the Secret of its password, and a patch of
// moonbridge's Deployment that turns the replicas on and mounts that Secret.
type Redis struct {
	Kustomization Component
	Deployment    *appsv1.Deployment
	Service       *corev1.Service
	NetworkPolicy *networkingv1.NetworkPolicy
	Secret        *corev1.Secret
	// Patch is the strategic merge patch of moonbridge's Deployment, decoded (strictly) and as
	// the JSON kustomize merges; PatchFile is its file.
	Patch     *appsv1.Deployment
	PatchFile string
	patchJSON []byte
}

// Component is the part of a kustomize Component's file the redis component uses; any other
// field is an error.
type Component struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Patches    []struct {
		Path string `json:"path"`
	} `json:"patches"`
}

// componentAPI is the API version of kustomize's Component.
const componentAPI = "kustomize.config.k8s.io/v1alpha1"

// LoadRedis decodes the redis component in dir: a Component whose resources are a Deployment,
// a Service, a NetworkPolicy and a Secret, with one patch, and which lists every .yaml file of dir.
func LoadRedis(dir string) (*Redis, error) {
	r := &Redis{}
	if err := decodeFile(dir, "kustomization.yaml", &r.Kustomization); err != nil {
		return nil, err
	}
	k := r.Kustomization
	if k.APIVersion != componentAPI || k.Kind != "Component" || len(k.Patches) != 1 {
		return nil, &DecodeError{File: filepath.Join(dir, "kustomization.yaml"),
			Err: fmt.Errorf("%s %s with %d patches: want a %s Component with one patch, of moonbridge's Deployment", k.APIVersion, k.Kind, len(k.Patches), componentAPI)}
	}
	r.PatchFile = k.Patches[0].Path
	if err := checkFileList(dir, append(k.Resources[:len(k.Resources):len(k.Resources)], r.PatchFile)); err != nil {
		return nil, err
	}
	for _, name := range k.Resources {
		if err := decodeManifest(dir, name, r.slot); err != nil {
			return nil, err
		}
	}
	if r.Deployment == nil || r.Service == nil || r.NetworkPolicy == nil || r.Secret == nil {
		return nil, fmt.Errorf("%s: want one Deployment, Service, NetworkPolicy and Secret", dir)
	}
	return r, r.loadPatch(dir)
}

// slot is the field a resource of meta's kind goes into (nil when a file already filled it).
func (r *Redis) slot(_, name string, meta metav1.TypeMeta) (any, error) {
	switch meta.APIVersion + " " + meta.Kind {
	case "apps/v1 Deployment":
		return once(&r.Deployment), nil
	case "v1 Service":
		return once(&r.Service), nil
	case "networking.k8s.io/v1 NetworkPolicy":
		return once(&r.NetworkPolicy), nil
	case "v1 Secret":
		return once(&r.Secret), nil
	}
	return nil, &DecodeError{File: name, Err: fmt.Errorf("unknown kind %s %s in the redis component", meta.APIVersion, meta.Kind)}
}

// loadPatch decodes the patch strictly as a Deployment and keeps its JSON for WithRedis.
func (r *Redis) loadPatch(dir string) error {
	r.Patch = &appsv1.Deployment{}
	if err := decodeFile(dir, r.PatchFile, r.Patch); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, r.PatchFile))
	if err == nil {
		r.patchJSON, err = yaml.YAMLToJSON(data)
	}
	if err != nil {
		return &DecodeError{File: r.PatchFile, Err: err}
	}
	return nil
}

// WithRedis is s with the component r: its patch laid over the Deployment as kustomize lays a
// strategic merge patch (containers, their env and volumes merge by name, mounts by path), its
// Secret beside the others, and r kept for the checks.
// A patch of another object, or one whose container is not moonbridge's (it would add a
// second container), is an error.
func (s *Set) WithRedis(r *Redis) (*Set, error) {
	p := r.Patch
	if p.APIVersion != "apps/v1" || p.Kind != "Deployment" || p.Name != s.Deployment.Name {
		return nil, &DecodeError{File: r.PatchFile, Err: fmt.Errorf("patches %s %s %q; want moonbridge's Deployment %q", p.APIVersion, p.Kind, p.Name, s.Deployment.Name)}
	}
	original, err := json.Marshal(s.Deployment)
	if err != nil {
		return nil, err
	}
	merged, err := strategicpatch.StrategicMergePatch(original, r.patchJSON, appsv1.Deployment{})
	if err != nil {
		return nil, &DecodeError{File: r.PatchFile, Err: err}
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(merged, d); err != nil {
		return nil, &DecodeError{File: r.PatchFile, Err: err}
	}
	if n := len(d.Spec.Template.Spec.Containers); n != 1 {
		return nil, &DecodeError{File: r.PatchFile, Err: fmt.Errorf("leaves the Deployment %d containers: its container is not %q", n, s.Container().Name)}
	}
	if _, ok := s.Secrets[r.Secret.Name]; ok {
		return nil, &DecodeError{File: r.PatchFile, Err: fmt.Errorf("the manifests already hold a Secret %s", r.Secret.Name)}
	}
	with := *s
	with.Deployment, with.Redis = d, r
	with.Secrets = maps.Clone(s.Secrets)
	if with.Secrets == nil {
		with.Secrets = map[string]*corev1.Secret{}
	}
	with.Secrets[r.Secret.Name] = r.Secret
	return &with, nil
}
