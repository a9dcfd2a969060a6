package kubernetes

// Rules about discovery.kubernetes: the pod holds an API token exactly when the config uses one,
// and its ServiceAccount may read what the config watches.

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
)

// discoveryReads are the resources discovery lists and watches, by API group.
var discoveryReads = []struct{ group, resource string }{{"", "services"}, {"discovery.k8s.io", "endpointslices"}}

// checkDiscovery: the pods run as the ServiceAccount of the manifests, automount its token only
// when discovery watches the pod's cluster, and then a Role (the pod's namespace) or a
// ClusterRole (every namespace) bound to it lets it get, list and watch Services and
// EndpointSlices.
func checkDiscovery(s *Set, cfg Config) error {
	pod := s.Deployment.Spec.Template.Spec
	if pod.ServiceAccountName != "" && (s.ServiceAccount == nil || s.ServiceAccount.Name != pod.ServiceAccountName) {
		return finding("discovery", "the pods run as ServiceAccount %q, which is not in the manifests", pod.ServiceAccountName)
	}
	k := cfg.Discovery.Kubernetes
	inCluster := k.Enabled && k.APIURL == ""
	if automount := pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken; automount != inCluster {
		return finding("discovery", "automountServiceAccountToken %v with discovery.kubernetes enabled %v, api_url %q: want the token only for discovery in the pod's cluster", automount, k.Enabled, k.APIURL)
	}
	if !inCluster {
		return nil
	}
	if s.ServiceAccount == nil || pod.ServiceAccountName != s.ServiceAccount.Name {
		return finding("discovery", "the pods do not run as the manifests' ServiceAccount (serviceAccountName %q)", pod.ServiceAccountName)
	}
	rules, err := grantedRules(s, k.Namespace)
	if err != nil {
		return err
	}
	for _, r := range discoveryReads {
		for _, verb := range []string{"get", "list", "watch"} {
			if !allows(rules, r.group, r.resource, verb) {
				return finding("discovery", "the ServiceAccount may not %s %s (API group %q), which discovery reads", verb, r.resource, r.group)
			}
		}
	}
	return nil
}

// grantedRules are the rules bound to the ServiceAccount where discovery watches: a Role for
// the pod's namespace, a ClusterRole for every namespace.
func grantedRules(s *Set, namespace string) ([]rbacv1.PolicyRule, error) {
	switch namespace {
	case PodNamespace:
		if s.Role == nil || s.RoleBinding == nil || !binds(s.RoleBinding.RoleRef, s.RoleBinding.Subjects, "Role", s.Role.Name, s.ServiceAccount.Name) {
			return nil, finding("discovery", "discovery watches the pod's namespace: want a Role bound to ServiceAccount %s", s.ServiceAccount.Name)
		}
		return s.Role.Rules, nil
	case "":
		if s.ClusterRole == nil || s.ClusterRoleBinding == nil ||
			!binds(s.ClusterRoleBinding.RoleRef, s.ClusterRoleBinding.Subjects, "ClusterRole", s.ClusterRole.Name, s.ServiceAccount.Name) {
			return nil, finding("discovery", "discovery watches every namespace: want a ClusterRole bound to ServiceAccount %s by a ClusterRoleBinding", s.ServiceAccount.Name)
		}
		return s.ClusterRole.Rules, nil
	}
	return nil, finding("discovery", "discovery.kubernetes.namespace %q: the manifests grant nothing there; use ${POD_NAMESPACE} or \"\" (every namespace)", namespace)
}

// binds: ref names the role of kind and name, and subjects hold the ServiceAccount.
func binds(ref rbacv1.RoleRef, subjects []rbacv1.Subject, kind, role, account string) bool {
	if ref.APIGroup != rbacv1.GroupName || ref.Kind != kind || ref.Name != role {
		return false
	}
	return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool { return s.Kind == rbacv1.ServiceAccountKind && s.Name == account })
}

// allows: one of rules grants verb on resource of group.
func allows(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	match := func(list []string, want string) bool {
		return slices.Contains(list, want) || slices.Contains(list, "*")
	}
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
		return match(r.APIGroups, group) && match(r.Resources, resource) && match(r.Verbs, verb) && len(r.ResourceNames) == 0
	})
}
