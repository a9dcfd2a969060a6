package kubernetes

// Rules about traffic: what selects the pods, which ports lead where.

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/moonbridge/moonbridge/deploy/image"
)

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

// checkScrape: the Prometheus annotations point at the admin port's /metrics.
func checkScrape(s *Set, cfg Config) error {
	a := s.Deployment.Spec.Template.Annotations
	admin, _ := port(cfg.Admin.Listen)
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != strconv.Itoa(int(admin)) || a["prometheus.io/path"] != "/metrics" {
		return finding("scrape", "prometheus.io annotations %v: want scrape true, port %d, path /metrics", a, admin)
	}
	return nil
}
