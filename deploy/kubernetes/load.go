// Package kubernetes reads the manifests in deploy/kubernetes the way the API server would
// decode them, with the upstream API types and unknown or duplicate fields as errors, and checks
// that they fit together and fit the image (Check). It needs no cluster.
package kubernetes

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// Set is the manifests of one directory, one object of each kind but Secrets: the TLS one
// (Secret) and the others by name (Secrets: the admin token's, the transfer secret's). The
// access discovery needs (the RBAC objects) may be left out, as a Role or a ClusterRole;
// checkDiscovery says when it is missing, and so may the NetworkPolicy and the other Secrets,
// which checkNetworkPolicy, checkAdminToken and checkTransferSecret ask for. Redis is the redis
// component when the kustomization lists it, its patch already laid over Deployment.
type Set struct {
	Kustomization      Kustomization
	Deployment         *appsv1.Deployment
	Service            *corev1.Service
	ConfigMap          *corev1.ConfigMap
	Secret             *corev1.Secret
	Secrets            map[string]*corev1.Secret
	NetworkPolicy      *networkingv1.NetworkPolicy
	PDB                *policyv1.PodDisruptionBudget
	HPA                *autoscalingv2.HorizontalPodAutoscaler
	ServiceAccount     *corev1.ServiceAccount
	Role               *rbacv1.Role
	RoleBinding        *rbacv1.RoleBinding
	ClusterRole        *rbacv1.ClusterRole
	ClusterRoleBinding *rbacv1.ClusterRoleBinding
	Redis              *Redis
}

// Kustomization is the part of kustomize's file this directory uses; any other field is an
// error (decoded strictly, like the rest).
type Kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Components []string `json:"components,omitempty"`
	Images     []struct {
		Name    string `json:"name"`
		NewName string `json:"newName,omitempty"`
		NewTag  string `json:"newTag,omitempty"`
	} `json:"images"`
}

// DecodeError says which file did not decode and why.
type DecodeError struct {
	File string
	Err  error
}

func (e *DecodeError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *DecodeError) Unwrap() error { return e.Err }

// Load decodes dir/kustomization.yaml and every resource it lists, which must be every other
// .yaml file of dir, and the component it lists (the redis one, in its folder) if any.
func Load(dir string) (*Set, error) {
	s := &Set{}
	if err := decodeFile(dir, "kustomization.yaml", &s.Kustomization); err != nil {
		return nil, err
	}
	if err := checkFileList(dir, s.Kustomization.Resources); err != nil {
		return nil, err
	}
	for _, name := range s.Kustomization.Resources {
		if err := decodeManifest(dir, name, s.slot); err != nil {
			return nil, err
		}
	}
	if s.Deployment == nil || s.Service == nil || s.ConfigMap == nil || s.Secret == nil || s.PDB == nil || s.HPA == nil {
		return nil, fmt.Errorf("%s: want one Deployment, Service, ConfigMap, Secret, PodDisruptionBudget and HorizontalPodAutoscaler", dir)
	}
	for _, name := range s.Kustomization.Components {
		if err := s.addComponent(dir, name); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// addComponent lays the component of the folder dir/name over s; the redis component is the
// only one there is.
func (s *Set) addComponent(dir, name string) error {
	if s.Redis != nil {
		return &DecodeError{File: "kustomization.yaml", Err: fmt.Errorf("component %s: a second component", name)}
	}
	r, err := LoadRedis(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	with, err := s.WithRedis(r)
	if err != nil {
		return err
	}
	*s = *with
	return nil
}

// checkFileList: a kustomization names every manifest of its directory, so none escapes
// kubectl apply -k (or these checks).
func checkFileList(dir string, listed []string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	var want []string
	for _, f := range files {
		if base := filepath.Base(f); base != "kustomization.yaml" {
			want = append(want, base)
		}
	}
	got := slices.Sorted(slices.Values(listed))
	if !slices.Equal(got, want) {
		return &DecodeError{File: filepath.Join(dir, "kustomization.yaml"), Err: fmt.Errorf("resources and patches %v, but the directory holds %v", got, want)}
	}
	return nil
}

// rbac is the API version of Roles and their bindings.
const rbac = "rbac.authorization.k8s.io/v1"

// slot is the field a manifest of meta's kind goes into (nil when a file already filled it).
func (s *Set) slot(dir, name string, meta metav1.TypeMeta) (any, error) {
	var target any
	var err error
	switch meta.APIVersion + " " + meta.Kind {
	case "apps/v1 Deployment":
		target = once(&s.Deployment)
	case "v1 Service":
		target = once(&s.Service)
	case "v1 ConfigMap":
		target = once(&s.ConfigMap)
	case "v1 Secret":
		target, err = s.secretSlot(dir, name)
	case "networking.k8s.io/v1 NetworkPolicy":
		target = once(&s.NetworkPolicy)
	case "policy/v1 PodDisruptionBudget":
		target = once(&s.PDB)
	case "autoscaling/v2 HorizontalPodAutoscaler":
		target = once(&s.HPA)
	case "v1 ServiceAccount":
		target = once(&s.ServiceAccount)
	case rbac + " Role":
		target = once(&s.Role)
	case rbac + " RoleBinding":
		target = once(&s.RoleBinding)
	case rbac + " ClusterRole":
		target = once(&s.ClusterRole)
	case rbac + " ClusterRoleBinding":
		target = once(&s.ClusterRoleBinding)
	default:
		err = &DecodeError{File: name, Err: fmt.Errorf("unknown kind %s %s", meta.APIVersion, meta.Kind)}
	}
	return target, err
}

// decodeManifest decodes the manifest name into the slot slotOf picks for its kind.
func decodeManifest(dir, name string, slotOf func(dir, name string, meta metav1.TypeMeta) (any, error)) error {
	var meta metav1.TypeMeta
	if err := decodeLoose(dir, name, &meta); err != nil {
		return err
	}
	target, err := slotOf(dir, name, meta)
	if err != nil {
		return err
	}
	return decodeObject(dir, name, meta.Kind, target)
}

// decodeObject decodes the manifest name of kind into target, the slot load chose (nil when a
// file already filled it), strictly, and checks its names.
func decodeObject(dir, name, kind string, target any) error {
	if target == nil {
		return &DecodeError{File: name, Err: fmt.Errorf("a second %s", kind)}
	}
	if err := decodeFile(dir, name, target); err != nil {
		return err
	}
	if d, ok := target.(*appsv1.Deployment); ok && len(d.Spec.Template.Spec.Containers) != 1 {
		return &DecodeError{File: name, Err: fmt.Errorf("%d containers, want one", len(d.Spec.Template.Spec.Containers))}
	}
	return checkName(name, target.(metav1.Object))
}

// secretSlot is where a Secret goes: Secret for a kubernetes.io/tls one, Secrets under its name
// for any other; nil when a file already filled it.
func (s *Set) secretSlot(dir, name string) (any, error) {
	var secret struct {
		Type     corev1.SecretType `json:"type"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := decodeLoose(dir, name, &secret); err != nil {
		return nil, err
	}
	if secret.Type == corev1.SecretTypeTLS {
		return once(&s.Secret), nil
	}
	if _, ok := s.Secrets[secret.Metadata.Name]; ok {
		return nil, nil
	}
	if s.Secrets == nil {
		s.Secrets = map[string]*corev1.Secret{}
	}
	s.Secrets[secret.Metadata.Name] = &corev1.Secret{}
	return s.Secrets[secret.Metadata.Name], nil
}

// once allocates *field and returns it, or nil when a file already filled it.
func once[T any](field **T) any {
	if *field != nil {
		return nil
	}
	*field = new(T)
	return *field
}

// checkName: object and label names as the API server would accept them.
func checkName(file string, obj metav1.Object) error {
	for _, msg := range validation.IsDNS1123Subdomain(obj.GetName()) {
		return &DecodeError{File: file, Err: fmt.Errorf("metadata.name %q: %s", obj.GetName(), msg)}
	}
	for k, v := range obj.GetLabels() {
		for _, msg := range append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...) {
			return &DecodeError{File: file, Err: fmt.Errorf("label %s=%s: %s", k, v, msg)}
		}
	}
	return nil
}

// decodeFile decodes strictly: an unknown or duplicate field is an error.
func decodeFile(dir, name string, into any) error {
	return decode(dir, name, into, yaml.UnmarshalStrict)
}

// decodeLoose reads what it needs of a file (its kind) and ignores the rest.
func decodeLoose(dir, name string, into any) error { return decode(dir, name, into, yaml.Unmarshal) }

func decode(dir, name string, into any, unmarshal func([]byte, any, ...yaml.JSONOpt) error) error {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := unmarshal(data, into); err != nil {
		return &DecodeError{File: name, Err: err}
	}
	return nil
}
