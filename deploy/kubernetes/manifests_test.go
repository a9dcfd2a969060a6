package kubernetes

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// secretDir holds a 32-byte value under each key of secret, as the pod would see it once the
// Secret is filled in (an admin token, a transfer secret: both want 16 bytes or more).
func secretDir(t *testing.T, secret *corev1.Secret) string {
	t.Helper()
	dir := t.TempDir()
	for _, key := range slices.Concat(slices.Collect(maps.Keys(secret.StringData)), slices.Collect(maps.Keys(secret.Data))) {
		if err := os.WriteFile(filepath.Join(dir, key), []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// secretMounts maps the pod's Secret mounts to local directories with their files.
func secretMounts(t *testing.T, s *Set) map[string]string {
	t.Helper()
	tls := s.SecretMountPath()
	if tls == "" {
		t.Fatal("the Deployment does not mount the TLS Secret as a directory")
	}
	mounts := map[string]string{tls: certDir(t)}
	for name, secret := range s.Secrets {
		path := s.mountPathOf(secret)
		if path == "" {
			t.Fatalf("the Deployment does not mount Secret %s as a directory", name)
		}
		mounts[path] = secretDir(t, secret)
	}
	return mounts
}

// load reads this directory's manifests and the effective config of its ConfigMap.
func load(t *testing.T) (*Set, Config) {
	t.Helper()
	s := loadSet(t)
	return s, effective(t, s)
}

// loadSet reads this directory's manifests.
func loadSet(t *testing.T) *Set {
	t.Helper()
	s, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// effective is the effective config moonbridge's check-config reads from s's ConfigMap.
func effective(t *testing.T, s *Set) Config {
	t.Helper()
	cfg, err := CheckConfig(moonbridgeBinary(t), s, secretMounts(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Issue 38: moonbridge itself refuses the ConfigMap once its admin port, on every address of
// the pod, has no token.
func TestConfigMapAdminPortNeedsAToken(t *testing.T) {
	s := loadSet(t)
	mounts := secretMounts(t, s)
	text := s.ConfigMap.Data[ConfigKey]
	line := regexp.MustCompile(`(?m)^ *token_file: .*\n`)
	if !line.MatchString(text) {
		t.Fatalf("the ConfigMap sets no admin.token_file:\n%s", text)
	}
	s.ConfigMap.Data[ConfigKey] = line.ReplaceAllString(text, "")
	if _, err := CheckConfig(moonbridgeBinary(t), s, mounts); err == nil || !strings.Contains(err.Error(), "admin.token_file") {
		t.Errorf("check-config of the ConfigMap without the admin token: %v, want a refusal naming admin.token_file", err)
	}
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

// Issue 41: the pods start without a warning, with the redis component and without: the
// transfer-no-secret one was logged while transfer_to had no transfer_secret_file.
func TestConfigMapWarnsOfNothing(t *testing.T) {
	_, cfg := load(t)
	_, withRedis := loadWithRedis(t)
	for name, warnings := range map[string]string{"the manifests": cfg.Warnings, "with the redis component": withRedis.Warnings} {
		if warnings != "" {
			t.Errorf("check-config of the ConfigMap, %s, warns:\n%s", name, warnings)
		}
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
		{"admin token", func(_ *Set, c *Config) { c.Admin.TokenFile = "" }},
		{"admin token", func(_ *Set, c *Config) { c.Admin.TokenFile = "/etc/moonbridge/admin.token" }},
		{"admin token", func(s *Set, _ *Config) { delete(s.Secrets, adminSecret) }},
		{"admin token", func(s *Set, _ *Config) { s.Secrets[adminSecret].StringData = map[string]string{"other": ""} }},
		{"volumes", func(s *Set, _ *Config) { secretVolume(t, s, adminSecret).Secret.DefaultMode = new(int32) }},
		{"admin token", func(s *Set, _ *Config) { secretVolume(t, s, adminSecret).Secret.SecretName = "other" }},
		{"transfer secret", func(_ *Set, c *Config) { c.Shutdown.TransferSecretFile = "" }},
		{"transfer secret", func(_ *Set, c *Config) { c.Shutdown.TransferSecretFile = "/etc/moonbridge/transfer.secret" }},
		{"transfer secret", func(s *Set, _ *Config) { delete(s.Secrets, transferSecret) }},
		{"transfer secret", func(s *Set, _ *Config) { s.Secrets[transferSecret].StringData = map[string]string{"key": ""} }},
		{"transfer secret", func(s *Set, _ *Config) {
			m := mount(s.Container(), secretVolume(t, s, transferSecret).Name)
			m.MountPath, m.SubPath = "/etc/moonbridge/transfer/secret", "secret"
		}},
		{"volumes", func(s *Set, _ *Config) { secretVolume(t, s, transferSecret).Secret.DefaultMode = new(int32) }},
		{"network policy", func(s *Set, _ *Config) { s.NetworkPolicy = nil }},
		{"network policy", func(s *Set, _ *Config) {
			s.NetworkPolicy.Spec.PodSelector.MatchLabels = map[string]string{"app": "other"}
		}},
		{"network policy", func(s *Set, _ *Config) {
			s.NetworkPolicy.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}
		}},
		{"network policy", func(s *Set, _ *Config) { s.NetworkPolicy.Spec.Ingress[1].From = nil }},
		{"network policy", func(s *Set, _ *Config) { s.NetworkPolicy.Spec.Ingress[1].From[0].PodSelector = nil }},
		{"network policy", func(s *Set, _ *Config) { s.NetworkPolicy.Spec.Ingress[0].Ports = nil }},
		{"network policy", func(s *Set, _ *Config) {
			s.NetworkPolicy.Spec.Ingress[1].From = []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}}}
		}},
		{"network policy", func(s *Set, _ *Config) {
			s.NetworkPolicy.Spec.Ingress[1].From = []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0"}}}
		}},
		{"network policy", func(s *Set, _ *Config) {
			s.NetworkPolicy.Spec.Ingress = s.NetworkPolicy.Spec.Ingress[1:]
		}},
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

// The manifests' Secrets besides the TLS one.
const (
	adminSecret    = "moonbridge-admin"
	transferSecret = "moonbridge-transfer"
)

// secretVolume is the Deployment's volume of the Secret name.
func secretVolume(t *testing.T, s *Set, name string) *corev1.Volume {
	t.Helper()
	volumes := s.Deployment.Spec.Template.Spec.Volumes
	for i := range volumes {
		if volumes[i].Secret != nil && volumes[i].Secret.SecretName == name {
			return &volumes[i]
		}
	}
	t.Fatalf("no volume of Secret %s", name)
	return nil
}

func (s *Set) copy() *Set {
	c := &Set{Kustomization: s.Kustomization, Deployment: s.Deployment.DeepCopy(), Service: s.Service.DeepCopy(),
		ConfigMap: s.ConfigMap.DeepCopy(), Secret: s.Secret.DeepCopy(), Secrets: map[string]*corev1.Secret{},
		NetworkPolicy: s.NetworkPolicy.DeepCopy(), PDB: s.PDB.DeepCopy(), HPA: s.HPA.DeepCopy(),
		ServiceAccount: s.ServiceAccount.DeepCopy(), Role: s.Role.DeepCopy(), RoleBinding: s.RoleBinding.DeepCopy(),
		ClusterRole: s.ClusterRole.DeepCopy(), ClusterRoleBinding: s.ClusterRoleBinding.DeepCopy()}
	for name, secret := range s.Secrets {
		c.Secrets[name] = secret.DeepCopy()
	}
	if r := s.Redis; r != nil {
		c.Redis = &Redis{Kustomization: r.Kustomization, Deployment: r.Deployment.DeepCopy(), Service: r.Service.DeepCopy(),
			NetworkPolicy: r.NetworkPolicy.DeepCopy(), Secret: r.Secret.DeepCopy(), Patch: r.Patch.DeepCopy(), PatchFile: r.PatchFile, patchJSON: r.patchJSON}
	}
	return c
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
		{"unknown NetworkPolicy field", "networkpolicy.yaml", "policyTypes: [Ingress]", "policyType: [Ingress]"},
		{"a second TLS Secret", "admin-secret.yaml", "type: Opaque", "type: kubernetes.io/tls"},
		{"a second container", "deployment.yaml", "      containers:\n", "      containers:\n        - name: sidecar\n          image: busybox\n"},
	} {
		dir := copyDir(t)
		replaceIn(t, filepath.Join(dir, tc.file), tc.old, tc.new)
		var decodeErr *DecodeError
		if _, err := Load(dir); !errors.As(err, &decodeErr) {
			t.Errorf("%s: got %v", tc.name, err)
		}
	}
}

// copyDir copies the manifests and the redis component's to a temporary directory.
func copyDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, redisDir), 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.yaml")
	if err == nil {
		var component []string
		component, err = filepath.Glob(filepath.Join(redisDir, "*.yaml"))
		files = append(files, component...)
	}
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
