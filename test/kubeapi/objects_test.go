package kubeapi

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// The annotations discovery reads, under the default prefix.
const (
	hostAnnotation     = "moonbridge.io/host"
	backendsAnnotation = "moonbridge.io/backends"
)

// namespace creates a namespace for one test. Nothing deletes it: no namespace controller runs,
// and the cluster goes at the end.
func namespace(t *testing.T, client kubernetes.Interface, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}

// minecraftService is a ClusterIP Service with one port named minecraft, 25565 to 25566 on
// the pods, and annotations.
func minecraftService(ns, name string, annotations map[string]string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "minecraft", Protocol: corev1.ProtocolTCP, Port: 25565,
			TargetPort: intstr.FromInt32(25566)}}},
	}
}

func createService(t *testing.T, client kubernetes.Interface, svc *corev1.Service) *corev1.Service {
	t.Helper()
	created, err := client.CoreV1().Services(svc.Namespace).Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// endpoint is one pod's address and whether it is ready.
type endpoint struct {
	ip    string
	ready bool
}

// endpointSlice is a slice of Service svc with port minecraft on the pods' 25566, as the
// EndpointSlice controller writes one (no controller runs here).
func endpointSlice(ns, name, svc string, endpoints ...endpoint) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("minecraft"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To[int32](25566)}},
	}
	for _, e := range endpoints {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{e.ip},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(e.ready)}})
	}
	return es
}

// grant gives user a Role in ns with rules, as a cluster's owner would.
func grant(t *testing.T, client kubernetes.Interface, ns, user string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "moonbridge-test"}, Rules: rules}
	if _, err := client.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "moonbridge-test"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
	if _, err := client.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Rules a discovery Role is made of.
var (
	readServices       = rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "watch"}}
	readEndpointSlices = rbacv1.PolicyRule{APIGroups: []string{discoveryv1.GroupName}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}}
)
