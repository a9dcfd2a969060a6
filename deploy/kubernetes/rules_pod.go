package kubernetes

// Rules about the pod: its files, its stop, its privileges, its scaling.

import (
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/moonbridge/moonbridge/deploy/image"
)

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
	for _, secret := range append([]*corev1.Secret{s.Secret}, slices.Collect(maps.Values(s.Secrets))...) {
		if s.mountPathOf(secret) != "" && !secretReadable(s, secret) {
			return finding("volumes", "the files of Secret %s are not readable by user %d", secret.Name, image.UID)
		}
	}
	for _, file := range []string{cfg.TLS.Cert, cfg.TLS.Key} {
		key, ok := strings.CutPrefix(file, mount+"/")
		if !ok || !secretHasKey(s.Secret, key) {
			return finding("volumes", "tls file %q is not a key of Secret %s mounted at %s", file, s.Secret.Name, mount)
		}
	}
	return nil
}

// secretReadable: secret's mounted keys are readable by the image's user, through the group
// fsGroup gives the files or by everyone (files are owned by root).
func secretReadable(s *Set, secret *corev1.Secret) bool {
	pod := s.Deployment.Spec.Template.Spec
	for _, v := range pod.Volumes {
		if v.Secret == nil || v.Secret.SecretName != secret.Name {
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

// checkTransfer: a rollout moves players to the pods that stay: shutdown.transfer_to names the
// Service's Minecraft port (its public name is the operator's: the load balancer's DNS name, or
// one pointed at it).
func checkTransfer(s *Set, cfg Config) error {
	_, port, err := net.SplitHostPort(cfg.Shutdown.TransferTo)
	if err != nil {
		return finding("transfer", "shutdown.transfer_to %q: want the Service's public host:port, so that a rollout moves players", cfg.Shutdown.TransferTo)
	}
	for _, p := range s.Service.Spec.Ports {
		if p.Name == "minecraft" && strconv.Itoa(int(p.Port)) == port {
			return nil
		}
	}
	return finding("transfer", "shutdown.transfer_to %q is not the Service's minecraft port", cfg.Shutdown.TransferTo)
}

// checkTransferSecret: with shutdown.transfer_to, every pod reads one transfer secret, so that
// the pod a moved player lands on believes its cookie and routes it to the host it joined at.
func checkTransferSecret(s *Set, cfg Config) error {
	file := cfg.Shutdown.TransferSecretFile
	if file == "" && cfg.Shutdown.TransferTo != "" {
		return finding("transfer secret", "shutdown.transfer_to %q without transfer_secret_file: a moved player lands on that name's route, whatever route it left", cfg.Shutdown.TransferTo)
	}
	if file == "" {
		return nil
	}
	return s.checkSecretFile("transfer secret", "shutdown.transfer_secret_file", file)
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
