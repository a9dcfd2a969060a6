package kubernetes

// Rules about the redis component: one Redis pod, reached by moonbridge's pods alone, at the
// address the config names, with the password of the component's Secret. Each passes when the
// manifests leave the component out.

import (
	"net"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// redisContainer is the Redis Deployment's container, its only one (LoadRedis makes sure).
func (r *Redis) redisContainer() *corev1.Container {
	return &r.Deployment.Spec.Template.Spec.Containers[0]
}

// checkRedisPod: one replica of a pinned image, non-root with a read-only root, every
// capability dropped, resources for the scheduler and a memory limit, and probes.
func checkRedisPod(s *Set, _ Config) error {
	if s.Redis == nil {
		return nil
	}
	d := s.Redis.Deployment
	pod, c := d.Spec.Template.Spec.SecurityContext, s.Redis.redisContainer()
	switch {
	case deref(d.Spec.Replicas) != 1:
		return finding("redis pod", "replicas %d: want 1, or the pods would share their state on two Redises that do not share theirs", deref(d.Spec.Replicas))
	case !pinned(c.Image):
		return finding("redis pod", "image %q: want a pinned tag or digest", c.Image)
	case pod == nil || !deref(pod.RunAsNonRoot) || deref(pod.RunAsUser) == 0:
		return finding("redis pod", "want a pod securityContext with runAsNonRoot and a non-root runAsUser")
	case c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation ||
		!deref(c.SecurityContext.ReadOnlyRootFilesystem) || c.SecurityContext.Capabilities == nil ||
		!slices.Equal(c.SecurityContext.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(c.SecurityContext.Capabilities.Add) > 0:
		return finding("redis pod", "want allowPrivilegeEscalation false, readOnlyRootFilesystem true, every capability dropped")
	case c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero():
		return finding("redis pod", "want requests of cpu and memory and a memory limit, have %v", c.Resources)
	case c.ReadinessProbe == nil || c.LivenessProbe == nil:
		return finding("redis pod", "want a readiness and a liveness probe")
	}
	return nil
}

// pinned: image names a tag other than latest, or a digest.
func pinned(image string) bool {
	if strings.Contains(image, "@sha256:") {
		return true
	}
	name := image[strings.LastIndex(image, "/")+1:]
	_, tag, ok := strings.Cut(name, ":")
	return ok && tag != "" && tag != "latest"
}

// checkRedisSelectors: the Redis Deployment and Service select the Redis pods and not
// moonbridge's, and none of moonbridge's selectors takes the Redis pods (its Service would send
// players there, its budget and policy would count them).
func checkRedisSelectors(s *Set, _ Config) error {
	if s.Redis == nil {
		return nil
	}
	r := s.Redis
	redisPods, moonbridgePods := labels.Set(r.Deployment.Spec.Template.Labels), labels.Set(s.Deployment.Spec.Template.Labels)
	for name, sel := range map[string]*metav1.LabelSelector{"Redis Deployment": r.Deployment.Spec.Selector, "Redis Service": {MatchLabels: r.Service.Spec.Selector}} {
		selector, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || selector.Empty() || !selector.Matches(redisPods) || selector.Matches(moonbridgePods) {
			return finding("redis selectors", "the %s's selector %v does not select the Redis pods' labels %v alone (%v)", name, sel, redisPods, err)
		}
	}
	for name, sel := range map[string]*metav1.LabelSelector{"Deployment": s.Deployment.Spec.Selector, "PodDisruptionBudget": s.PDB.Spec.Selector,
		"Service": {MatchLabels: s.Service.Spec.Selector}, "NetworkPolicy": networkPolicySelector(s)} {
		if selector, err := metav1.LabelSelectorAsSelector(sel); err == nil && !emptySelector(sel) && selector.Matches(redisPods) {
			return finding("redis selectors", "moonbridge's %s selects the Redis pods (%v)", name, redisPods)
		}
	}
	return nil
}

func networkPolicySelector(s *Set) *metav1.LabelSelector {
	if s.NetworkPolicy == nil {
		return nil
	}
	return &s.NetworkPolicy.Spec.PodSelector
}

// checkRedisAddress: the component's patch turns the replicas on, at the Redis Service's name
// and a port of it that leads to Redis.
func checkRedisAddress(s *Set, cfg Config) error {
	if s.Redis == nil {
		return nil
	}
	svc := s.Redis.Service
	if !cfg.Replicas.Enabled {
		return finding("redis address", "the redis component runs, but the config's replicas.enabled is false: its patch does not turn them on")
	}
	host, portText, err := net.SplitHostPort(cfg.Replicas.Address)
	if err != nil || host != svc.Name && !strings.HasPrefix(host, svc.Name+".") {
		return finding("redis address", "replicas.address %q is not the Redis Service %s", cfg.Replicas.Address, svc.Name)
	}
	for _, p := range svc.Spec.Ports {
		cp, ok := containerPort(s.Redis.redisContainer(), p.TargetPort)
		if strconv.Itoa(int(p.Port)) == portText && ok && cp.Protocol == corev1.ProtocolTCP {
			return nil
		}
	}
	return finding("redis address", "replicas.address %q: port %s of Service %s leads to no Redis port", cfg.Replicas.Address, portText, svc.Name)
}

// checkRedisNetworkPolicy: the component's NetworkPolicy isolates the Redis pods and opens
// Redis' port only to pods named by label in their namespace, moonbridge's among them.
func checkRedisNetworkPolicy(s *Set, _ Config) error {
	if s.Redis == nil {
		return nil
	}
	r := s.Redis
	np, c := r.NetworkPolicy.Spec, r.redisContainer()
	selector, err := metav1.LabelSelectorAsSelector(&np.PodSelector)
	if err != nil || selector.Empty() || !selector.Matches(labels.Set(r.Deployment.Spec.Template.Labels)) || !slices.Contains(np.PolicyTypes, "Ingress") {
		return finding("redis network policy", "podSelector %v, policyTypes %v: want the Redis pods, Ingress", np.PodSelector, np.PolicyTypes)
	}
	if len(c.Ports) == 0 {
		return finding("redis network policy", "the Redis container declares no port")
	}
	redisPort, admitted := c.Ports[0].ContainerPort, false
	for i, rule := range np.Ingress {
		if !opens(c, rule, redisPort) {
			continue
		}
		if len(rule.From) == 0 {
			return finding("redis network policy", "ingress[%d] opens Redis to everyone", i)
		}
		for _, peer := range rule.From {
			if peer.IPBlock != nil || peer.NamespaceSelector != nil || emptySelector(peer.PodSelector) {
				return finding("redis network policy", "ingress[%d] opens Redis to %+v: want pods of this namespace named by label", i, peer)
			}
			sel, err := metav1.LabelSelectorAsSelector(peer.PodSelector)
			admitted = admitted || err == nil && sel.Matches(labels.Set(s.Deployment.Spec.Template.Labels))
		}
	}
	if !admitted {
		return finding("redis network policy", "no rule lets moonbridge's pods reach Redis' port %d", redisPort)
	}
	return nil
}

// checkRedisPassword: Redis requires the password of the component's Secret, and moonbridge
// sends it: replicas.password_file is that Secret's key, in the patch's mount of it. Without a
// network plugin that enforces the NetworkPolicy, the password is all that keeps any pod of the
// cluster from writing the shared state.
func checkRedisPassword(s *Set, cfg Config) error {
	if s.Redis == nil {
		return nil
	}
	r, file := s.Redis, cfg.Replicas.PasswordFile
	if file == "" {
		return finding("redis password", "replicas.password_file is empty: moonbridge would send Redis no password")
	}
	if err := s.checkSecretFile("redis password", "replicas.password_file", file); err != nil {
		return err
	}
	dir := s.mountPathOf(r.Secret)
	key, ok := strings.CutPrefix(file, dir+"/")
	if dir == "" || !ok {
		return finding("redis password", "replicas.password_file %q is not in the mount of the component's Secret %s", file, r.Secret.Name)
	}
	return r.checkRequirePass(key)
}

// checkRequirePass: the Redis container's env holds key of the component's Secret, not
// optional, and its command hands that variable to requirepass.
func (r *Redis) checkRequirePass(key string) error {
	c := r.redisContainer()
	for _, e := range c.Env {
		var ref *corev1.SecretKeySelector
		if e.ValueFrom != nil {
			ref = e.ValueFrom.SecretKeyRef
		}
		if ref == nil || ref.Name != r.Secret.Name || ref.Key != key || deref(ref.Optional) {
			continue
		}
		command := strings.Join(slices.Concat(c.Command, c.Args), " ")
		if strings.Contains(command, "requirepass") && (strings.Contains(command, "$"+e.Name) || strings.Contains(command, "${"+e.Name+"}")) {
			return nil
		}
	}
	return finding("redis password", "the Redis container does not require the password: want an env var from key %s of Secret %s (not optional) that its command gives requirepass", key, r.Secret.Name)
}
