package kubernetes

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/moonbridge/moonbridge/deploy/internal/testcert"
)

// moonbridgeBinary is the binary whose check-config judges the ConfigMap: MOONBRIDGE_BIN
// (make test passes bin/moonbridge-purego), else a pure-Go build of the repository's.
func moonbridgeBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("MOONBRIDGE_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "moonbridge")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/moonbridge")
	cmd.Dir, cmd.Env = "../..", append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building moonbridge: %v\n%s", err, out)
	}
	return bin
}

// certDir holds a throwaway certificate under the Secret's file names.
func certDir(t *testing.T) string {
	t.Helper()
	cert, key := testcert.New(t, "play.example.net")
	dir := t.TempDir()
	for name, data := range map[string][]byte{corev1.TLSCertKey: cert, corev1.TLSPrivateKeyKey: key} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// load reads this directory's manifests and the effective config of its ConfigMap.
func load(t *testing.T) (*Set, Config) {
	t.Helper()
	s, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	mount := s.SecretMountPath()
	if mount == "" {
		t.Fatal("the Deployment does not mount the Secret")
	}
	cfg, err := CheckConfig(moonbridgeBinary(t), s, mount, certDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return s, cfg
}

// The manifests decode strictly with the API types, moonbridge accepts the config, and they fit
// together, with the config and with the image.
func TestManifestsFitTogether(t *testing.T) {
	s, cfg := load(t)
	for _, err := range Check(s, cfg) {
		t.Error(err)
	}
	if s.Secret.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret type %q, want %s", s.Secret.Type, corev1.SecretTypeTLS)
	}
}

// Each rule of Check finds what it is there for.
func TestCheckFindsMistakes(t *testing.T) {
	s, cfg := load(t)
	for _, tc := range []struct {
		check  string
		change func(*Set, *Config)
	}{
		{"selectors", func(s *Set, _ *Config) { s.Service.Spec.Selector = map[string]string{"app": "other"} }},
		{"selectors", func(s *Set, _ *Config) { s.PDB.Spec.Selector.MatchLabels = map[string]string{"app": "other"} }},
		{"service", func(s *Set, _ *Config) {
			s.Service.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
		}},
		{"service", func(s *Set, _ *Config) { s.Service.Spec.Ports[0].TargetPort = intstr.FromString("gmae") }},
		{"service", func(s *Set, _ *Config) { s.Service.Spec.Ports[0].TargetPort = intstr.FromString("admin") }},
		{"ports", func(_ *Set, c *Config) { c.Listeners[0].Listen = "127.0.0.1:25577" }},
		{"ports", func(_ *Set, c *Config) { c.Listeners[0].Listen = "0.0.0.0:25578" }},
		{"ports", func(s *Set, _ *Config) { s.Container().Ports[0].ContainerPort = 25578 }},
		{"probes", func(s *Set, _ *Config) { s.Container().ReadinessProbe.HTTPGet.Path = "/livez" }},
		{"probes", func(s *Set, _ *Config) { s.Container().LivenessProbe.HTTPGet.Port = intstr.FromString("game") }},
		{"volumes", func(s *Set, _ *Config) { s.Container().VolumeMounts[0].MountPath = "/etc/moonbridge/config.yml" }},
		{"volumes", func(_ *Set, c *Config) { c.TLS.Key = "/etc/moonbridge/tls/privkey.pem" }},
		{"volumes", func(s *Set, _ *Config) { s.Deployment.Spec.Template.Spec.SecurityContext.FSGroup = nil }},
		{"grace period", func(_ *Set, c *Config) { c.Shutdown.DrainTimeout = "1m" }},
		{"grace period", func(s *Set, _ *Config) { s.Container().Lifecycle = nil }},
		{"transfer", func(_ *Set, c *Config) { c.Shutdown.TransferTo = "" }},
		{"transfer", func(_ *Set, c *Config) { c.Shutdown.TransferTo = "play.example.net:25577" }},
		{"security", func(s *Set, _ *Config) { s.Deployment.Spec.Template.Spec.SecurityContext.RunAsUser = new(int64) }},
		{"security", func(s *Set, _ *Config) { s.Container().SecurityContext.ReadOnlyRootFilesystem = new(bool) }},
		{"security", func(s *Set, _ *Config) {
			s.Container().SecurityContext.Capabilities.Add = append(s.Container().SecurityContext.Capabilities.Add, "NET_ADMIN")
		}},
		{"scaling", func(s *Set, _ *Config) { s.Deployment.Spec.Replicas = new(int32) }},
		{"scaling", func(s *Set, _ *Config) { s.HPA.Spec.ScaleTargetRef.Name = "other" }},
		{"scaling", func(s *Set, _ *Config) {
			two := intstr.FromInt32(2)
			s.PDB.Spec.MaxUnavailable, s.PDB.Spec.MinAvailable = nil, &two
		}},
		{"image", func(s *Set, _ *Config) { s.Container().Image = "moonbridge:latest" }},
		{"scrape", func(s *Set, _ *Config) { s.Deployment.Spec.Template.Annotations["prometheus.io/port"] = "25577" }},
		{"resources", func(s *Set, _ *Config) { delete(s.Container().Resources.Requests, corev1.ResourceCPU) }},
		{"discovery", func(s *Set, _ *Config) { s.Role.Rules[1].Verbs = []string{"get", "list"} }},
		{"discovery", func(s *Set, _ *Config) { s.Role.Rules[0].Resources = []string{"endpoints"} }},
		{"discovery", func(s *Set, _ *Config) { s.RoleBinding.Subjects[0].Name = "default" }},
		{"discovery", func(s *Set, _ *Config) { s.RoleBinding.RoleRef.Kind = "ClusterRole" }},
		{"discovery", func(s *Set, _ *Config) { s.Deployment.Spec.Template.Spec.AutomountServiceAccountToken = new(bool) }},
		{"discovery", func(s *Set, _ *Config) { s.Deployment.Spec.Template.Spec.ServiceAccountName = "" }},
		{"discovery", func(s *Set, _ *Config) { s.Deployment.Spec.Template.Spec.ServiceAccountName = "other" }},
		{"discovery", func(_ *Set, c *Config) { c.Discovery.Kubernetes.Namespace = "" }},
		{"discovery", func(_ *Set, c *Config) { c.Discovery.Kubernetes.Namespace = "games" }},
		{"discovery", func(_ *Set, c *Config) { c.Discovery.Kubernetes.Enabled = false }},
		{"discovery", func(_ *Set, c *Config) { c.Discovery.Kubernetes.APIURL = "https://other.example.net:6443" }},
	} {
		broken, brokenCfg := s.copy(), cfg.copy()
		tc.change(broken, &brokenCfg)
		errs := Check(broken, brokenCfg)
		var f *Finding
		if len(errs) != 1 || !errors.As(errs[0], &f) || f.Check != tc.check {
			t.Errorf("%s: got %v", tc.check, errs)
		}
	}
}

// Watching every namespace is what a ClusterRole and a ClusterRoleBinding in place of the Role
// and its binding allow.
func TestDiscoveryOfEveryNamespaceNeedsAClusterRole(t *testing.T) {
	s, cfg := load(t)
	cfg.Discovery.Kubernetes.Namespace = ""
	s.ClusterRole = &rbacv1.ClusterRole{ObjectMeta: s.Role.ObjectMeta, Rules: s.Role.Rules}
	s.ClusterRoleBinding = &rbacv1.ClusterRoleBinding{ObjectMeta: s.RoleBinding.ObjectMeta,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: s.ClusterRole.Name}, Subjects: s.RoleBinding.Subjects}
	s.Role, s.RoleBinding = nil, nil
	for _, err := range Check(s, cfg) {
		t.Error(err)
	}
}

func (s *Set) copy() *Set {
	return &Set{Kustomization: s.Kustomization, Deployment: s.Deployment.DeepCopy(), Service: s.Service.DeepCopy(),
		ConfigMap: s.ConfigMap.DeepCopy(), Secret: s.Secret.DeepCopy(), PDB: s.PDB.DeepCopy(), HPA: s.HPA.DeepCopy(),
		ServiceAccount: s.ServiceAccount.DeepCopy(), Role: s.Role.DeepCopy(), RoleBinding: s.RoleBinding.DeepCopy(),
		ClusterRole: s.ClusterRole.DeepCopy(), ClusterRoleBinding: s.ClusterRoleBinding.DeepCopy()}
}

func (c Config) copy() Config {
	c.Listeners = append(c.Listeners[:0:0], c.Listeners...)
	return c
}

// Load refuses unknown and duplicate fields, unknown kinds, and files the kustomization misses.
func TestLoadIsStrict(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new string
	}{
		{"unknown field", "deployment.yaml", "revisionHistoryLimit: 5", "revisionHistoryLimt: 5"},
		{"unknown nested field", "service.yaml", "externalTrafficPolicy: Local", "externalTrafficPolicy: Local\n  externalTraficPolicy: Local"},
		{"duplicate field", "pdb.yaml", "maxUnavailable: 1", "maxUnavailable: 1\n  maxUnavailable: 2"},
		{"wrong type", "hpa.yaml", "minReplicas: 2", "minReplicas: two"},
		{"unknown kind", "pdb.yaml", "apiVersion: policy/v1", "apiVersion: policy/v1beta1"},
		{"bad name", "service.yaml", "name: moonbridge", "name: Moonbridge_Service"},
		{"missing from the kustomization", "kustomization.yaml", "  - hpa.yaml\n", ""},
		{"unknown RBAC field", "role.yaml", "verbs: [get, list, watch]", "verb: [get, list, watch]"},
		{"a second container", "deployment.yaml", "      containers:\n", "      containers:\n        - name: sidecar\n          image: busybox\n"},
	} {
		dir := copyDir(t)
		path := filepath.Join(dir, tc.file)
		data, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(data), tc.old) {
			t.Fatalf("%s: %s lacks %q (%v)", tc.name, tc.file, tc.old, err)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(data), tc.old, tc.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		var decodeErr *DecodeError
		if _, err := Load(dir); !errors.As(err, &decodeErr) {
			t.Errorf("%s: got %v", tc.name, err)
		}
	}
}

func copyDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
