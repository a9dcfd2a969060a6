package kubernetes

import (
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/moonbridge/moonbridge/deploy/image"
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
		checkSelectors, checkService, checkPorts, checkProbes, checkVolumes, checkGrace,
		checkSecurity, checkScaling, checkImage, checkScrape, checkResources,
	} {
		if err := check(s, cfg); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Container is the Deployment's moonbridge container, the first and only one.
func (s *Set) Container() *corev1.Container { return &s.Deployment.Spec.Template.Spec.Containers[0] }

// SecretMountPath is the directory where the Deployment mounts the whole Secret (not one file
// of it with subPath, which would never see a renewed certificate), "" when it does not.
func (s *Set) SecretMountPath() string {
	for _, v := range s.Deployment.Spec.Template.Spec.Volumes {
		if m := mount(s.Container(), v.Name); v.Secret != nil && v.Secret.SecretName == s.Secret.Name && m != nil && m.SubPath == "" {
			return m.MountPath
		}
	}
	return ""
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

// checkSelectors: the Deployment, Service and PodDisruptionBudget all select its pods.
func checkSelectors(s *Set, _ Config) error {
	pod := labels.Set(s.Deployment.Spec.Template.Labels)
	for name, sel := range map[string]*metav1.LabelSelector{"Deployment": s.Deployment.Spec.Selector, "PodDisruptionBudget": s.PDB.Spec.Selector} {
		selector, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || selector.Empty() || !selector.Matches(pod) {
			return finding("selectors", "the %s's selector %v does not select the pods' labels %v (%v)", name, sel, pod, err)
		}
	}
	if sel := s.Service.Spec.Selector; len(sel) == 0 || !labels.SelectorFromSet(sel).Matches(pod) {
		return finding("selectors", "the Service's selector %v does not select the pods' labels %v", sel, pod)
	}
	if n := len(s.Deployment.Spec.Template.Spec.Containers); n != 1 {
		return finding("selectors", "the pod has %d containers, want moonbridge alone", n)
	}
	return nil
}

// checkService: a LoadBalancer that keeps the client's address, to the game port only.
func checkService(s *Set, cfg Config) error {
	spec := s.Service.Spec
	if spec.Type != corev1.ServiceTypeLoadBalancer || spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal {
		return finding("service", "type %q, externalTrafficPolicy %q: want LoadBalancer, Local (the player's address survives)", spec.Type, spec.ExternalTrafficPolicy)
	}
	admin, _ := port(cfg.Admin.Listen)
	for _, p := range spec.Ports {
		cp, ok := containerPort(s.Container(), p.TargetPort)
		if !ok {
			return finding("service", "port %s targets %s, which is no container port", p.Name, p.TargetPort.String())
		}
		if cp.ContainerPort == admin {
			return finding("service", "port %s exposes the admin port (plain HTTP without authentication)", p.Name)
		}
	}
	return nil
}

// checkPorts: the container declares the image's ports; moonbridge listens on them, on every
// address of the pod.
func checkPorts(s *Set, cfg Config) error {
	var declared []string
	for _, p := range s.Container().Ports {
		declared = append(declared, fmt.Sprintf("%d/%s", p.ContainerPort, strings.ToLower(string(p.Protocol))))
	}
	if !slices.Equal(slices.Sorted(slices.Values(declared)), slices.Sorted(slices.Values(image.Ports))) {
		return finding("ports", "container ports %v, the image exposes %v", declared, image.Ports)
	}
	addrs := []string{cfg.Admin.Listen}
	for _, l := range cfg.Listeners {
		addrs = append(addrs, l.Listen)
	}
	for _, addr := range addrs {
		host, _, _ := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
			return finding("ports", "moonbridge listens on %q: want every address (0.0.0.0 or [::]), the pod's is not known in advance", addr)
		}
		p, err := port(addr)
		if _, ok := containerPort(s.Container(), intstr.FromInt32(p)); err != nil || !ok {
			return finding("ports", "moonbridge listens on %q, which is no container port", addr)
		}
	}
	return nil
}

// checkProbes: readiness is /readyz and liveness /livez, both on the admin port.
func checkProbes(s *Set, cfg Config) error {
	c := s.Container()
	admin, err := port(cfg.Admin.Listen)
	if err != nil {
		return finding("probes", "admin.listen %q: %v (the probes need the admin endpoint)", cfg.Admin.Listen, err)
	}
	for _, p := range []struct {
		name, path string
		probe      *corev1.Probe
	}{{"readinessProbe", "/readyz", c.ReadinessProbe}, {"livenessProbe", "/livez", c.LivenessProbe}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path {
			return finding("probes", "%s: want an HTTP GET of %s", p.name, p.path)
		}
		if cp, ok := containerPort(c, p.probe.HTTPGet.Port); !ok || cp.ContainerPort != admin {
			return finding("probes", "%s: port %s is not admin.listen's %d", p.name, p.probe.HTTPGet.Port.String(), admin)
		}
	}
	return nil
}

// checkVolumes: the config file is where the image's command reads it, from the ConfigMap;
// the certificate and key the config names are files of the Secret's mount.
func checkVolumes(s *Set, cfg Config) error {
	for _, v := range s.Deployment.Spec.Template.Spec.Volumes {
		if v.ConfigMap == nil {
			continue
		}
		if v.ConfigMap.Name != s.ConfigMap.Name || len(v.ConfigMap.Items) > 0 {
			return finding("volumes", "volume %s names ConfigMap %s (items %v); want all of %s", v.Name, v.ConfigMap.Name, v.ConfigMap.Items, s.ConfigMap.Name)
		}
		m := mount(s.Container(), v.Name)
		if m == nil || configFilePath(m) != image.ConfigPath {
			return finding("volumes", "the config is mounted as %+v; the image reads %s", m, image.ConfigPath)
		}
	}
	mount := s.SecretMountPath()
	if mount == "" {
		return finding("volumes", "Secret %s is not mounted as a directory", s.Secret.Name)
	}
	if !secretReadable(s) {
		return finding("volumes", "the Secret's files are not readable by user %d", image.UID)
	}
	for _, file := range []string{cfg.TLS.Cert, cfg.TLS.Key} {
		key, ok := strings.CutPrefix(file, mount+"/")
		_, inData := s.Secret.Data[key]
		_, inStringData := s.Secret.StringData[key]
		if !ok || !(inData || inStringData) {
			return finding("volumes", "tls file %q is not a key of Secret %s mounted at %s", file, s.Secret.Name, mount)
		}
	}
	return nil
}

// secretReadable: the mounted key is readable by the image's user, through the group fsGroup
// gives the files or by everyone (files are owned by root).
func secretReadable(s *Set) bool {
	pod := s.Deployment.Spec.Template.Spec
	for _, v := range pod.Volumes {
		if v.Secret == nil || v.Secret.SecretName != s.Secret.Name {
			continue
		}
		mode := deref(v.Secret.DefaultMode)
		if v.Secret.DefaultMode == nil {
			mode = corev1.SecretVolumeSourceDefaultMode
		}
		byGroup := mode&0o040 != 0 && pod.SecurityContext != nil && deref(pod.SecurityContext.FSGroup) == image.GID
		return byGroup || mode&0o004 != 0
	}
	return false
}

// checkGrace: the kubelet waits for the preStop sleep and the whole drain before SIGKILL.
func checkGrace(s *Set, cfg Config) error {
	drain, err := cfg.DrainTimeout()
	if err != nil {
		return finding("grace period", "shutdown.drain_timeout: %v", err)
	}
	pre := s.Container().Lifecycle
	if pre == nil || pre.PreStop == nil || pre.PreStop.Sleep == nil {
		return finding("grace period", "no preStop sleep: the listeners would close before the endpoint is gone")
	}
	need := time.Duration(pre.PreStop.Sleep.Seconds)*time.Second + drain
	grace := s.Deployment.Spec.Template.Spec.TerminationGracePeriodSeconds
	if grace == nil || time.Duration(*grace)*time.Second < need {
		return finding("grace period", "terminationGracePeriodSeconds %v is less than the preStop sleep and drain_timeout (%s)", deref(grace), need)
	}
	return nil
}

// checkSecurity: non-root as the image's user, read-only root, no privilege escalation, no
// capability but NET_BIND_SERVICE, the runtime's seccomp profile.
func checkSecurity(s *Set, _ Config) error {
	pod := s.Deployment.Spec.Template.Spec.SecurityContext
	c := s.Container().SecurityContext
	switch {
	case pod == nil || c == nil:
		return finding("security", "want a pod and a container securityContext")
	case !deref(pod.RunAsNonRoot) || deref(pod.RunAsUser) != image.UID:
		return finding("security", "runAsNonRoot %v, runAsUser %v: want true, %d (the image's user)", deref(pod.RunAsNonRoot), deref(pod.RunAsUser), image.UID)
	case pod.SeccompProfile == nil || pod.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		return finding("security", "want seccompProfile RuntimeDefault")
	case c.AllowPrivilegeEscalation == nil || *c.AllowPrivilegeEscalation || deref(c.Privileged) || !deref(c.ReadOnlyRootFilesystem):
		return finding("security", "want allowPrivilegeEscalation false, privileged false, readOnlyRootFilesystem true")
	case c.RunAsUser != nil || c.RunAsNonRoot != nil:
		return finding("security", "the container overrides the pod's user")
	case c.Capabilities == nil || !slices.Equal(c.Capabilities.Drop, []corev1.Capability{"ALL"}) ||
		slices.ContainsFunc(c.Capabilities.Add, func(c corev1.Capability) bool { return c != "NET_BIND_SERVICE" }):
		return finding("security", "capabilities %+v: want drop ALL, add at most NET_BIND_SERVICE", c.Capabilities)
	}
	return nil
}

// checkScaling: the autoscaler owns the replica count, a rollout and a disruption never take
// away more than one pod's players, and never all of them.
func checkScaling(s *Set, _ Config) error {
	ref := s.HPA.Spec.ScaleTargetRef
	minReplicas := deref(s.HPA.Spec.MinReplicas)
	ru := s.Deployment.Spec.Strategy.RollingUpdate
	switch {
	case ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != s.Deployment.Name:
		return finding("scaling", "the autoscaler scales %s %s %s, not the Deployment %s", ref.APIVersion, ref.Kind, ref.Name, s.Deployment.Name)
	case s.Deployment.Spec.Replicas != nil:
		return finding("scaling", "the Deployment sets replicas, which every apply would reset under the autoscaler")
	case minReplicas < 2:
		return finding("scaling", "minReplicas %d: want at least 2, so one pod's drain leaves another", minReplicas)
	case ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.IntValue() != 0 || ru.MaxUnavailable.Type != intstr.Int:
		return finding("scaling", "the rollout's maxUnavailable must be 0: a new pod is ready before an old one drains")
	}
	pdb := s.PDB.Spec
	if pdb.MaxUnavailable != nil && (pdb.MaxUnavailable.Type != intstr.Int || pdb.MaxUnavailable.IntValue() != 1) {
		return finding("scaling", "the PodDisruptionBudget's maxUnavailable %s: want 1", pdb.MaxUnavailable.String())
	}
	if pdb.MinAvailable != nil && (pdb.MinAvailable.Type != intstr.Int || int32(pdb.MinAvailable.IntValue()) >= minReplicas) {
		return finding("scaling", "the PodDisruptionBudget's minAvailable %s blocks every eviction at minReplicas %d", pdb.MinAvailable.String(), minReplicas)
	}
	if (pdb.MaxUnavailable == nil) == (pdb.MinAvailable == nil) {
		return finding("scaling", "the PodDisruptionBudget needs one of maxUnavailable and minAvailable")
	}
	return nil
}

// checkImage: kustomize's images entry names the container's image, so it gets the registry.
func checkImage(s *Set, _ Config) error {
	for _, img := range s.Kustomization.Images {
		if img.Name == s.Container().Image {
			return nil
		}
	}
	return finding("image", "the container's image %q is not in kustomization.yaml's images", s.Container().Image)
}

// checkScrape: the Prometheus annotations point at the admin port's /metrics.
func checkScrape(s *Set, cfg Config) error {
	a := s.Deployment.Spec.Template.Annotations
	admin, _ := port(cfg.Admin.Listen)
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != strconv.Itoa(int(admin)) || a["prometheus.io/path"] != "/metrics" {
		return finding("scrape", "prometheus.io annotations %v: want scrape true, port %d, path /metrics", a, admin)
	}
	return nil
}

// checkResources: requests for the scheduler and the autoscaler's CPU, a memory limit for
// memory.limit to read.
func checkResources(s *Set, _ Config) error {
	r := s.Container().Resources
	if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
		return finding("resources", "want requests of cpu and memory and a memory limit, have %v", r)
	}
	for _, m := range s.HPA.Spec.Metrics {
		if m.Resource == nil || m.Resource.Name != corev1.ResourceCPU {
			return finding("resources", "the autoscaler's metric %+v: want CPU, which the requests make a utilization", m)
		}
	}
	return nil
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
