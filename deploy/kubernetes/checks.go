package kubernetes

import (
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Finding is one way the manifests do not fit together, the config or the image.
type Finding struct {
	Check  string // the rule, e.g. "grace period"
	Detail string
}

func (f *Finding) Error() string { return f.Check + ": " + f.Detail }

func finding(check, format string, args ...any) error {
	return &Finding{Check: check, Detail: fmt.Sprintf(format, args...)}
}

// Check returns every rule s and its effective config cfg break; nil when they fit.
func Check(s *Set, cfg Config) []error {
	var errs []error
	for _, check := range []func(*Set, Config) error{
		checkSelectors, checkService, checkPorts, checkProbes, checkVolumes, checkGrace, checkTransfer,
		checkSecurity, checkScaling, checkImage, checkScrape, checkResources, checkDiscovery,
		checkAdminToken, checkTransferSecret, checkNetworkPolicy, checkRedisPod, checkRedisSelectors,
		checkRedisAddress, checkRedisNetworkPolicy, checkRedisPassword,
	} {
		if err := check(s, cfg); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Container is the Deployment's moonbridge container, its only one (Load makes sure).
func (s *Set) Container() *corev1.Container { return &s.Deployment.Spec.Template.Spec.Containers[0] }

// SecretMountPath is the directory where the Deployment mounts the whole TLS Secret (not one
// file of it with subPath, which would never see a renewed certificate), "" when it does not.
func (s *Set) SecretMountPath() string { return s.mountPathOf(s.Secret) }

func (s *Set) mountPathOf(secret *corev1.Secret) string {
	if secret == nil {
		return ""
	}
	for _, v := range s.Deployment.Spec.Template.Spec.Volumes {
		if m := mount(s.Container(), v.Name); v.Secret != nil && v.Secret.SecretName == secret.Name && m != nil && m.SubPath == "" {
			return m.MountPath
		}
	}
	return ""
}

// checkSecretFile: file, the value of setting, is a key of one of s.Secrets, mounted whole as a
// directory (a file mounted with subPath would never see the Secret change).
func (s *Set) checkSecretFile(check, setting, file string) error {
	for _, v := range s.Deployment.Spec.Template.Spec.Volumes {
		m := mount(s.Container(), v.Name)
		if v.Secret == nil || m == nil || m.SubPath != "" {
			continue
		}
		key, ok := strings.CutPrefix(file, m.MountPath+"/")
		if !ok {
			continue
		}
		secret := s.Secrets[v.Secret.SecretName]
		switch {
		case secret == nil:
			return finding(check, "%s %q is in the mount of Secret %s, which is not in the manifests", setting, file, v.Secret.SecretName)
		case !secretHasKey(secret, key):
			return finding(check, "%s %q is not a key of Secret %s mounted at %s", setting, file, secret.Name, m.MountPath)
		}
		return nil
	}
	return finding(check, "%s %q is in no Secret mounted as a directory", setting, file)
}

func mount(c *corev1.Container, volume string) *corev1.VolumeMount {
	for i, m := range c.VolumeMounts {
		if m.Name == volume {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

// configFilePath is where the pod sees the ConfigMap's config key through m: at the mount path
// itself when it mounts that one key (subPath), else inside the mounted directory.
func configFilePath(m *corev1.VolumeMount) string {
	switch m.SubPath {
	case ConfigKey:
		return m.MountPath
	case "":
		return path.Join(m.MountPath, ConfigKey)
	}
	return ""
}

// containerPort finds the port p names (by name or number) in c.
func containerPort(c *corev1.Container, p intstr.IntOrString) (corev1.ContainerPort, bool) {
	for _, cp := range c.Ports {
		if (p.Type == intstr.String && cp.Name == p.StrVal) || (p.Type == intstr.Int && cp.ContainerPort == p.IntVal) {
			return cp, true
		}
	}
	return corev1.ContainerPort{}, false
}

// port is the port of HOST:PORT.
func port(addr string) (int32, error) {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(p, 10, 16)
	return int32(n), err
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
