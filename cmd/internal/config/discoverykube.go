package config

import "regexp"

// KubeDiscovery turns Kubernetes Services with moonbridge's annotations into routes
// (discover/kube), served beside the file's.
type KubeDiscovery struct {
	Enabled bool `yaml:"enabled"`
	// Namespace is the one namespace watched (a Role there is enough); "": every namespace (a
	// ClusterRole).
	Namespace string `yaml:"namespace"`
	// AnnotationPrefix goes before /host, /port and /backends.
	AnnotationPrefix string `yaml:"annotation_prefix"`
	// APIURL is the API server's https:// URL; "": the pod's own cluster, with its service
	// account's token and CA.
	APIURL string `yaml:"api_url"`
	// TokenFile holds the bearer token, read for each request; "": the service account's in
	// a pod, none with api_url.
	TokenFile string `yaml:"token_file"`
	// CAFile is the PEM authority of the API server's certificate; "": the service account's in
	// a pod, the system's with api_url.
	CAFile string `yaml:"ca_file"`
	// RouteTrust: the hosts the source's routes may take from the file's and the API's, and what
	// they may name (routetrust.go).
	RouteTrust `yaml:",inline"`
}

func defaultKubeDiscovery() KubeDiscovery {
	return KubeDiscovery{AnnotationPrefix: "moonbridge.io", RouteTrust: defaultRouteTrust()}
}

var (
	// dnsLabel is a namespace's name (RFC 1123 label, as Kubernetes takes it).
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	// dnsSubdomain is an RFC 1123 subdomain: an annotation's prefix, and a label key's dotted
	// start (discovery.docker.label_prefix: moonbridge, com.example.mc).
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// validate checks the hosts and allow lists, and the rest of the section when it is on; the
// files it names are read at start (the token again for each request).
func (k KubeDiscovery) validate() []error {
	const key = "discovery.kubernetes"
	errs := k.RouteTrust.validate(key)
	if !k.Enabled {
		return errs
	}
	if k.Namespace != "" && !dnsLabel.MatchString(k.Namespace) {
		errs = append(errs, invalid(key+".namespace", "%q is not a namespace name (lowercase letters, digits and -); empty watches every namespace", k.Namespace))
	}
	if len(k.AnnotationPrefix) > 253 || !dnsSubdomain.MatchString(k.AnnotationPrefix) {
		errs = append(errs, invalid(key+".annotation_prefix", "%q is not a DNS name such as moonbridge.io", k.AnnotationPrefix))
	}
	if k.APIURL != "" {
		errs = append(errs, httpURL(key+".api_url", k.APIURL))
	}
	return append(errs, readableFile(key+".token_file", k.TokenFile), readableFile(key+".ca_file", k.CAFile))
}
