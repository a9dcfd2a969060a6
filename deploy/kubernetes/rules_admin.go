package kubernetes

// Rules about the admin port: it listens on every address of the pod, for the kubelet's probes
// and Prometheus, so a token guards what changes state and a NetworkPolicy lets in only the
// scrape (the probes come from the pod's node, which no NetworkPolicy shuts out).

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// checkAdminToken: admin.token_file is a key of a Secret mounted as a directory (checkVolumes
// checks that its files are readable).
func checkAdminToken(s *Set, cfg Config) error {
	if cfg.Admin.TokenFile == "" {
		return finding("admin token", "admin.listen %q has no admin.token_file: any pod that reaches the port could move players or empty the block list", cfg.Admin.Listen)
	}
	return s.checkSecretFile("admin token", "admin.token_file", cfg.Admin.TokenFile)
}

func secretHasKey(secret *corev1.Secret, key string) bool {
	_, inData := secret.Data[key]
	_, inStringData := secret.StringData[key]
	return inData || inStringData
}

// checkNetworkPolicy: a NetworkPolicy isolates the pods' ingress, opens the game port to
// anyone, and opens the admin port only to named pods (Prometheus's).
func checkNetworkPolicy(s *Set, cfg Config) error {
	admin, _ := port(cfg.Admin.Listen)
	np := s.NetworkPolicy
	if np == nil {
		return finding("network policy", "none: every pod of the cluster reaches the admin port %d", admin)
	}
	selector, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil || !selector.Matches(labels.Set(s.Deployment.Spec.Template.Labels)) {
		return finding("network policy", "its podSelector %v does not select the pods (%v)", np.Spec.PodSelector, err)
	}
	if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
		return finding("network policy", "policyTypes %v: want Ingress, or it lets everything in", np.Spec.PolicyTypes)
	}
	gameOpen := false
	for i, rule := range np.Spec.Ingress {
		if opens(s.Container(), rule, admin) {
			if err := onlyNamedPods(i, rule.From); err != nil {
				return err
			}
		}
		gameOpen = gameOpen || len(rule.From) == 0 && opensAll(s.Container(), rule, gamePorts(s, admin))
	}
	if !gameOpen {
		return finding("network policy", "no rule lets everyone into the game ports %v: the players could not connect", gamePorts(s, admin))
	}
	return nil
}

// onlyNamedPods: the peers of rule i, which opens the admin port, name pods by label (in their
// namespace, or in namespaces named by label), never everyone, a whole namespace or an address
// block (which may cover every pod).
func onlyNamedPods(i int, from []networkingv1.NetworkPolicyPeer) error {
	if len(from) == 0 {
		return finding("network policy", "ingress[%d] opens the admin port to everyone", i)
	}
	for _, peer := range from {
		switch {
		case peer.IPBlock != nil:
			return finding("network policy", "ingress[%d] opens the admin port to the address block %s: name Prometheus's pods by label", i, peer.IPBlock.CIDR)
		case emptySelector(peer.PodSelector):
			return finding("network policy", "ingress[%d] opens the admin port to every pod of the namespaces it names: name Prometheus's pods by label", i)
		case peer.NamespaceSelector != nil && emptySelector(peer.NamespaceSelector):
			return finding("network policy", "ingress[%d] opens the admin port to pods of every namespace: name Prometheus's by label", i)
		}
	}
	return nil
}

func emptySelector(sel *metav1.LabelSelector) bool {
	return sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0
}

// opens says whether rule lets traffic to port p of container c in: no ports listed is every
// one.
func opens(c *corev1.Container, rule networkingv1.NetworkPolicyIngressRule, p int32) bool {
	if len(rule.Ports) == 0 {
		return true
	}
	for _, rp := range rule.Ports {
		if rp.Protocol != nil && *rp.Protocol != corev1.ProtocolTCP {
			continue
		}
		if rp.Port == nil {
			return true
		}
		cp, ok := containerPort(c, *rp.Port)
		if ok && (cp.ContainerPort == p || rp.EndPort != nil && cp.ContainerPort <= p && p <= *rp.EndPort) {
			return true
		}
	}
	return false
}

func opensAll(c *corev1.Container, rule networkingv1.NetworkPolicyIngressRule, ports []int32) bool {
	return len(ports) > 0 && !slices.ContainsFunc(ports, func(p int32) bool { return !opens(c, rule, p) })
}

// gamePorts are the container's ports but the admin port (checkPorts matches them with the
// listeners).
func gamePorts(s *Set, admin int32) []int32 {
	var ports []int32
	for _, p := range s.Container().Ports {
		if p.ContainerPort != admin {
			ports = append(ports, p.ContainerPort)
		}
	}
	return ports
}
