package kubernetes

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// redisDir is the redis component's folder.
const redisDir = "redis"

// loadWithRedis is load's Set with the redis component laid over it, and its effective config.
func loadWithRedis(t *testing.T) (*Set, Config) {
	t.Helper()
	r, err := LoadRedis(redisDir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := loadSet(t).WithRedis(r)
	if err != nil {
		t.Fatal(err)
	}
	return s, effective(t, s)
}

// Issue 42: without the component the pods keep their state to themselves; with it, its patch
// reaches moonbridge's container, the ConfigMap's placeholders turn the replicas on at the
// component's Redis (moonbridge's check-config judges both), and everything fits together.
func TestRedisComponentTurnsTheReplicasOn(t *testing.T) {
	_, without := load(t)
	if without.Replicas.Enabled {
		t.Errorf("without the redis component: replicas.enabled true")
	}
	s, cfg := loadWithRedis(t)
	for _, err := range Check(s, cfg) {
		t.Error(err)
	}
	if !cfg.Replicas.Enabled || cfg.Replicas.Address != "moonbridge-redis:6379" || cfg.Replicas.LoginEgress != "" {
		t.Errorf("with the redis component: replicas %+v, want enabled at moonbridge-redis:6379, login_egress empty", cfg.Replicas)
	}
	if without.Replicas.PasswordFile != "" || cfg.Replicas.PasswordFile != redisPasswordFile {
		t.Errorf("replicas.password_file %q without the component, %q with it; want none, %s", without.Replicas.PasswordFile, cfg.Replicas.PasswordFile, redisPasswordFile)
	}
	env := s.Container().Env
	if !slices.ContainsFunc(env, func(e corev1.EnvVar) bool { return e.Name == "POD_NAMESPACE" }) {
		t.Errorf("the patch dropped the container's own env: %v", env)
	}
}

// redisPasswordFile is where the component's patch mounts its Secret's password in moonbridge's
// pods.
const redisPasswordFile = "/etc/moonbridge/redis/password"

// Each rule about the component finds what it is there for.
func TestRedisChecksFindMistakes(t *testing.T) {
	s, cfg := loadWithRedis(t)
	for _, tc := range []struct {
		check  string
		change func(*Redis, *Set, *Config)
	}{
		{"redis pod", func(r *Redis, _ *Set, _ *Config) { r.Deployment.Spec.Replicas = new(int32) }},
		{"redis pod", func(r *Redis, _ *Set, _ *Config) { r.redisContainer().Image = "redis" }},
		{"redis pod", func(r *Redis, _ *Set, _ *Config) { r.redisContainer().Image = "docker.io/library/redis:latest" }},
		{"redis pod", func(r *Redis, _ *Set, _ *Config) {
			r.Deployment.Spec.Template.Spec.SecurityContext.RunAsUser = new(int64)
		}},
		{"redis pod", func(r *Redis, _ *Set, _ *Config) {
			r.redisContainer().SecurityContext.ReadOnlyRootFilesystem = new(bool)
		}},
		{"redis pod", func(r *Redis, _ *Set, _ *Config) { delete(r.redisContainer().Resources.Limits, corev1.ResourceMemory) }},
		{"redis pod", func(r *Redis, _ *Set, _ *Config) { r.redisContainer().LivenessProbe = nil }},
		{"redis selectors", func(r *Redis, _ *Set, _ *Config) { r.Service.Spec.Selector = map[string]string{"app": "other"} }},
		{"redis selectors", func(r *Redis, s *Set, _ *Config) {
			r.Deployment.Spec.Template.Labels = s.Deployment.Spec.Template.Labels
			r.Deployment.Spec.Selector.MatchLabels = s.Deployment.Spec.Template.Labels
			r.Service.Spec.Selector = s.Deployment.Spec.Template.Labels
			r.NetworkPolicy.Spec.PodSelector.MatchLabels = s.Deployment.Spec.Template.Labels
		}},
		{"redis address", func(_ *Redis, _ *Set, c *Config) { c.Replicas.Enabled = false }},
		{"redis address", func(_ *Redis, _ *Set, c *Config) { c.Replicas.Address = "127.0.0.1:6379" }},
		{"redis address", func(_ *Redis, _ *Set, c *Config) { c.Replicas.Address = "moonbridge-redis:6380" }},
		{"redis network policy", func(r *Redis, _ *Set, _ *Config) {
			r.NetworkPolicy.Spec.PodSelector.MatchLabels = map[string]string{"app": "other"}
		}},
		{"redis network policy", func(r *Redis, _ *Set, _ *Config) { r.NetworkPolicy.Spec.Ingress[0].From = nil }},
		{"redis network policy", func(r *Redis, _ *Set, _ *Config) { r.NetworkPolicy.Spec.Ingress[0].From[0].PodSelector = nil }},
		{"redis network policy", func(r *Redis, _ *Set, _ *Config) {
			r.NetworkPolicy.Spec.Ingress[0].From[0].NamespaceSelector = &metav1.LabelSelector{}
		}},
		{"redis network policy", func(r *Redis, _ *Set, _ *Config) {
			r.NetworkPolicy.Spec.Ingress[0].From = []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0"}}}
		}},
		{"redis network policy", func(r *Redis, _ *Set, _ *Config) {
			r.NetworkPolicy.Spec.Ingress[0].From[0].PodSelector.MatchLabels = map[string]string{"app.kubernetes.io/name": "prometheus"}
		}},
		// Issue 42: Redis wants the component's Secret's password, and moonbridge sends it.
		{"redis password", func(_ *Redis, _ *Set, c *Config) { c.Replicas.PasswordFile = "" }},
		{"redis password", func(_ *Redis, _ *Set, c *Config) { c.Replicas.PasswordFile = "/etc/moonbridge/redis/passwd" }},
		{"redis password", func(_ *Redis, _ *Set, c *Config) { c.Replicas.PasswordFile = "/etc/moonbridge/admin/token" }},
		{"redis password", func(_ *Redis, s *Set, _ *Config) {
			mountOf(s.Container(), "/etc/moonbridge/redis").MountPath = "/etc/moonbridge/redis-password"
		}},
		{"redis password", func(r *Redis, _ *Set, _ *Config) {
			r.redisContainer().Command, r.redisContainer().Args = []string{"redis-server"}, []string{"--save", ""}
		}},
		{"redis password", func(r *Redis, _ *Set, _ *Config) {
			r.redisContainer().Env[0].ValueFrom.SecretKeyRef.Name = "moonbridge-admin"
		}},
		{"redis password", func(r *Redis, _ *Set, _ *Config) {
			r.redisContainer().Env[0].ValueFrom.SecretKeyRef.Optional = new(bool)
			*r.redisContainer().Env[0].ValueFrom.SecretKeyRef.Optional = true
		}},
	} {
		broken, brokenCfg := s.copy(), cfg.copy()
		tc.change(broken.Redis, broken, &brokenCfg)
		errs := Check(broken, brokenCfg)
		var f *Finding
		if len(errs) != 1 || !errors.As(errs[0], &f) || f.Check != tc.check {
			t.Errorf("%s: got %v", tc.check, errs)
		}
	}
}

// LoadRedis and WithRedis refuse a component kustomize would not build or that would not reach
// moonbridge's container; Load takes the component the kustomization lists.
func TestRedisComponentLoadIsStrict(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new string
	}{
		{"a missing resource", "kustomization.yaml", "  - service.yaml\n", ""},
		{"a file the component misses", "kustomization.yaml", "  - networkpolicy.yaml\n", ""},
		{"no patch", "kustomization.yaml", "patches:\n  - path: replicas-patch.yaml\n", "patches: []\n"},
		{"not a Component", "kustomization.yaml", "kind: Component", "kind: Kustomization"},
		{"unknown field", "deployment.yaml", "revisionHistoryLimit: 5", "revisionHistoryLimt: 5"},
		{"unknown field in the patch", "replicas-patch.yaml", "          env:", "          envv:"},
		{"unknown kind", "networkpolicy.yaml", "kind: NetworkPolicy", "kind: NetworkPolicies"},
		{"the patch of another container", "replicas-patch.yaml", "- name: moonbridge", "- name: moonbrigde"},
		{"the patch of another Deployment", "replicas-patch.yaml", "name: moonbridge\n", "name: other\n"},
		{"no Secret", "kustomization.yaml", "  - secret.yaml\n", ""},
	} {
		dir := copyDir(t)
		component := filepath.Join(dir, redisDir)
		if removed := map[string]string{"a missing resource": "service.yaml", "no Secret": "secret.yaml"}[tc.name]; removed != "" {
			if err := os.Remove(filepath.Join(component, removed)); err != nil {
				t.Fatal(err)
			}
		}
		replaceIn(t, filepath.Join(component, tc.file), tc.old, tc.new)
		replaceIn(t, filepath.Join(dir, "kustomization.yaml"), "# components: [redis]", "components: [redis]")
		var decodeErr *DecodeError
		if _, err := Load(dir); err == nil || tc.name != "a missing resource" && tc.name != "no Secret" && !errors.As(err, &decodeErr) {
			t.Errorf("%s: got %v", tc.name, err)
		}
	}
	dir := copyDir(t)
	replaceIn(t, filepath.Join(dir, "kustomization.yaml"), "# components: [redis]", "components: [redis]")
	s, err := Load(dir)
	if err != nil || s.Redis == nil || !slices.ContainsFunc(s.Container().Env, func(e corev1.EnvVar) bool { return e.Name == "MOONBRIDGE_REPLICAS" }) {
		t.Errorf("Load of the manifests with components: [redis]: %v, want the component and its env", err)
	}
}

// replaceIn replaces old, which file must hold, by new.
func replaceIn(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q (%v)", file, old, err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mountOf is c's mount at path.
func mountOf(c *corev1.Container, path string) *corev1.VolumeMount {
	for i, m := range c.VolumeMounts {
		if m.MountPath == path {
			return &c.VolumeMounts[i]
		}
	}
	return &corev1.VolumeMount{}
}
