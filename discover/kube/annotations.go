package kube

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/discover"
	"github.com/moonbridge/moonbridge/routes"
)

// annotationKeys are the annotations a Service is read by, under one prefix.
type annotationKeys struct {
	host, port, backends          string
	countriesAllow, countriesDeny string // the route's country lists, comma-separated codes
}

func newAnnotationKeys(prefix string) annotationKeys {
	return annotationKeys{host: prefix + "/host", port: prefix + "/port", backends: prefix + "/backends",
		countriesAllow: prefix + "/countries-allow", countriesDeny: prefix + "/countries-deny"}
}

// The values of the backends annotation.
const (
	backendsService   = "service"
	backendsEndpoints = "endpoints"
)

// defaultPortName is the Service port a route uses when the port annotation names none.
const defaultPortName = "minecraft"

// annotated is what a Service's annotations say its route is.
type annotated struct {
	namespace string
	name      string
	hosts     []string
	port      servicePort
	endpoints bool // per-pod backends from the EndpointSlices
	countries routes.Countries
	created   time.Time // the Service's creationTimestamp
}

// key is the Service's NAMESPACE/NAME.
func (a annotated) key() string { return a.namespace + "/" + a.name }

// errNotAnnotated is a Service without the host annotation: not moonbridge's.
var errNotAnnotated = errors.New("no host annotation")

// AnnotationError is a Service whose annotations do not make a route.
type AnnotationError struct {
	Annotation, Value, Reason string
}

func (e *AnnotationError) Error() string {
	return fmt.Sprintf("annotation %s=%q: %s", e.Annotation, e.Value, e.Reason)
}

// ExternalNameError is an annotated ExternalName Service, refused unless the settings allow
// those: its route's backend would be any DNS name, in the cluster or not.
type ExternalNameError struct {
	ExternalName string
}

func (e *ExternalNameError) Error() string {
	return fmt.Sprintf("an ExternalName Service (to %q) is not taken unless external names are allowed (discovery.kubernetes.external_name)", e.ExternalName)
}

// parse reads svc's annotations: errNotAnnotated, an *AnnotationError or its route.
func (k annotationKeys) parse(svc service) (annotated, error) {
	a := svc.Metadata.Annotations
	rawHosts, ok := a[k.host]
	if !ok {
		return annotated{}, errNotAnnotated
	}
	hosts, err := parseHosts(rawHosts)
	if err != nil {
		return annotated{}, &AnnotationError{Annotation: k.host, Value: rawHosts, Reason: err.Error()}
	}
	port, err := choosePort(svc.Spec.Ports, a[k.port])
	if err != nil {
		return annotated{}, &AnnotationError{Annotation: k.port, Value: a[k.port], Reason: err.Error()}
	}
	mode := a[k.backends]
	if mode != "" && mode != backendsService && mode != backendsEndpoints {
		return annotated{}, &AnnotationError{Annotation: k.backends, Value: mode, Reason: "want service or endpoints"}
	}
	countries, err := k.countries(a)
	if err != nil {
		return annotated{}, err
	}
	return annotated{namespace: svc.Metadata.Namespace, name: svc.Metadata.Name, hosts: hosts, port: port, endpoints: mode == backendsEndpoints,
		countries: countries, created: svc.Metadata.CreationTimestamp}, nil
}

// countries are the route's country lists from the countries annotations: empty without them.
func (k annotationKeys) countries(a map[string]string) (c routes.Countries, err error) {
	for _, list := range []struct {
		key   string
		codes *[]string
	}{{k.countriesAllow, &c.Allow}, {k.countriesDeny, &c.Deny}} {
		if *list.codes, err = discover.CountryList(a[list.key]); err != nil {
			return c, &AnnotationError{Annotation: list.key, Value: a[list.key], Reason: err.Error()}
		}
	}
	return c, nil
}

// parseHosts splits a comma-separated list of handshake hosts: names, *.domain or *.
func parseHosts(raw string) ([]string, error) {
	var hosts []string
	for h := range strings.SplitSeq(raw, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if !isHostPattern(h) {
			return nil, fmt.Errorf("%q is not a host name, *.domain or *", h)
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

func isHostPattern(h string) bool {
	if h == "*" {
		return true
	}
	name := strings.TrimPrefix(h, "*.")
	if name == "" || len(name) > 253 {
		return false
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// choosePort finds the TCP port named (by name or number): by default the one named
// minecraft, else the first TCP port.
func choosePort(ports []servicePort, named string) (servicePort, error) {
	var tcp []servicePort
	for _, p := range ports {
		if p.Protocol == "" || p.Protocol == "TCP" {
			tcp = append(tcp, p)
		}
	}
	if len(tcp) == 0 {
		return servicePort{}, errors.New("the Service has no TCP port")
	}
	want := named
	if want == "" {
		want = defaultPortName
	}
	number, err := strconv.ParseInt(want, 10, 32)
	for _, p := range tcp {
		if p.Name == want || err == nil && int64(p.Port) == number {
			return p, nil
		}
	}
	if named == "" {
		return tcp[0], nil
	}
	return servicePort{}, fmt.Errorf("the Service has no TCP port named or numbered %s", named)
}
