package kube

import (
	"encoding/json"
	"time"
)

// The parts of the API's objects this package reads; encoding/json skips the rest.

type objectMeta struct {
	Name            string            `json:"name"`
	Namespace       string            `json:"namespace"`
	ResourceVersion string            `json:"resourceVersion"`
	Labels          map[string]string `json:"labels"`
	Annotations     map[string]string `json:"annotations"`
	// CreationTimestamp orders Services that claim one host: the older is served.
	CreationTimestamp time.Time `json:"creationTimestamp"`
}

// key is how a store knows an object: NAMESPACE/NAME.
func (m objectMeta) key() string { return m.Namespace + "/" + m.Name }

// object is a Service or an EndpointSlice.
type object interface{ meta() objectMeta }

type service struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Ports []servicePort `json:"ports"`
	} `json:"spec"`
}

type servicePort struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"` // "" is TCP
	Port     int32  `json:"port"`
}

func (s service) meta() objectMeta { return s.Metadata }

// serviceNameLabel names the Service an EndpointSlice belongs to.
const serviceNameLabel = "kubernetes.io/service-name"

type endpointSlice struct {
	Metadata    objectMeta     `json:"metadata"`
	AddressType string         `json:"addressType"` // IPv4, IPv6, FQDN
	Endpoints   []endpoint     `json:"endpoints"`
	Ports       []endpointPort `json:"ports"`
}

type endpoint struct {
	Addresses  []string `json:"addresses"` // fungible: the first one is used
	Conditions struct {
		Ready *bool `json:"ready"` // nil: unknown, taken as ready as the API asks
	} `json:"conditions"`
}

type endpointPort struct {
	Name *string `json:"name"` // the Service port's name; nil for an unnamed one
	Port *int32  `json:"port"` // the pods' port (the Service port's target)
}

func (s endpointSlice) meta() objectMeta { return s.Metadata }

// list is a page of a list response.
type list[T object] struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
		Continue        string `json:"continue"`
	} `json:"metadata"`
	Items []T `json:"items"`
}

// watchEvent is one line of a watch stream; Object is the object, or a Status for ERROR.
type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// Watch event types.
const (
	eventAdded    = "ADDED"
	eventModified = "MODIFIED"
	eventDeleted  = "DELETED"
	eventBookmark = "BOOKMARK"
	eventError    = "ERROR"
)
