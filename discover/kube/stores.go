package kube

import (
	"errors"
	"net"
	"slices"
	"strconv"

	"github.com/rs/zerolog"
)

// serviceStore keeps the annotated Services whose annotations parse, by NAMESPACE/NAME.
type serviceStore struct {
	keys annotationKeys
	// externalName lets an ExternalName Service be a route: its backend is whatever DNS name
	// its owner wrote, in the cluster or not.
	externalName bool
	routes       map[string]annotated
	// refused is the error last logged for a Service left out, so that it is logged once per
	// change, not at each status update.
	refused map[string]string
	synced  bool // the first list arrived
	log     zerolog.Logger
}

func newServiceStore(prefix string, externalName bool, log zerolog.Logger) *serviceStore {
	return &serviceStore{keys: newAnnotationKeys(prefix), externalName: externalName,
		routes: map[string]annotated{}, refused: map[string]string{}, log: log}
}

func (s *serviceStore) replace(items []service) {
	clear(s.routes)
	clear(s.refused)
	for _, svc := range items {
		s.put(svc)
	}
	s.synced = true
}

func (s *serviceStore) put(svc service) {
	key := svc.Metadata.key()
	a, err := s.keys.parse(svc)
	if err == nil && svc.Spec.Type == typeExternalName && !s.externalName {
		err = &ExternalNameError{ExternalName: svc.Spec.ExternalName}
	}
	if err == nil {
		s.routes[key] = a
		delete(s.refused, key)
		return
	}
	delete(s.routes, key)
	if errors.Is(err, errNotAnnotated) {
		delete(s.refused, key)
		return
	}
	if s.refused[key] != err.Error() {
		s.log.Warn().Str("service", key).Err(err).Msg("kubernetes: Service left out")
		s.refused[key] = err.Error()
	}
}

func (s *serviceStore) remove(svc service) {
	delete(s.routes, svc.Metadata.key())
	delete(s.refused, svc.Metadata.key())
}

// endpointServices are the Services (NAMESPACE/NAME, sorted) whose routes take their backends
// from EndpointSlices.
func (s *serviceStore) endpointServices() []string {
	var keys []string
	for key, a := range s.routes {
		if a.endpoints {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys
}

// slice is what an EndpointSlice gives its Service's route: each port by the Service port's
// name, and its ready endpoints' addresses.
type slice struct {
	service string           // NAMESPACE/NAME of the Service
	ports   map[string]int32 // Service port name ("" when unnamed) → the pods' port
	ready   []string
}

func readSlice(s endpointSlice) slice {
	out := slice{service: s.Metadata.Namespace + "/" + s.Metadata.Labels[serviceNameLabel], ports: map[string]int32{}}
	for _, p := range s.Ports {
		if p.Port != nil {
			out.ports[deref(p.Name)] = *p.Port
		}
	}
	for _, e := range s.Endpoints {
		if len(e.Addresses) > 0 && (e.Conditions.Ready == nil || *e.Conditions.Ready) {
			out.ready = append(out.ready, e.Addresses[0])
		}
	}
	return out
}

// backends are the ready endpoints' addresses on the port that Service port targets.
func (s slice) backends(port servicePort) []string {
	target, ok := s.ports[port.Name]
	if !ok {
		return nil
	}
	backends := make([]string, len(s.ready))
	for i, addr := range s.ready {
		backends[i] = net.JoinHostPort(addr, strconv.Itoa(int(target)))
	}
	return backends
}

// sliceStore keeps the EndpointSlices of the Services it follows, by their Service, then by
// their own NAMESPACE/NAME. Its watch names those Services in a label selector, which cannot
// name a namespace: a slice of another namespace's Service of the same name is dropped here.
type sliceStore struct {
	byService map[string]map[string]slice
	owner     map[string]string // slice key → its Service's key
	followed  map[string]bool   // the Services' NAMESPACE/NAME
	// generation counts the calls of follow: a view of an older one (a watch being stopped)
	// changes nothing.
	generation int
}

func newSliceStore() *sliceStore {
	return &sliceStore{byService: map[string]map[string]slice{}, owner: map[string]string{}, followed: map[string]bool{}}
}

// follow keeps the slices of services (NAMESPACE/NAME) from now on, and drops the others.
func (s *sliceStore) follow(services []string) {
	s.generation++
	clear(s.followed)
	for _, key := range services {
		s.followed[key] = true
	}
	for key, svc := range s.owner {
		if !s.followed[svc] {
			delete(s.byService, svc)
			delete(s.owner, key)
		}
	}
}

// view is the store as the watch of the current generation changes it.
func (s *sliceStore) view() store[endpointSlice] { return sliceView{s: s, generation: s.generation} }

// sliceView passes a watch's changes to its store while the watch is the current one.
type sliceView struct {
	s          *sliceStore
	generation int
}

func (v sliceView) current() bool { return v.generation == v.s.generation }

func (v sliceView) replace(items []endpointSlice) {
	if v.current() {
		v.s.replace(items)
	}
}

func (v sliceView) put(es endpointSlice) {
	if v.current() {
		v.s.put(es)
	}
}

func (v sliceView) remove(es endpointSlice) {
	if v.current() {
		v.s.remove(es)
	}
}

func (s *sliceStore) replace(items []endpointSlice) {
	clear(s.byService)
	clear(s.owner)
	for _, es := range items {
		s.put(es)
	}
}

func (s *sliceStore) put(es endpointSlice) {
	s.remove(es)
	sl, key := readSlice(es), es.Metadata.key()
	if !s.followed[sl.service] {
		return
	}
	if s.byService[sl.service] == nil {
		s.byService[sl.service] = map[string]slice{}
	}
	s.byService[sl.service][key] = sl
	s.owner[key] = sl.service
}

func (s *sliceStore) remove(es endpointSlice) {
	key := es.Metadata.key()
	svc, ok := s.owner[key]
	if !ok {
		return
	}
	delete(s.byService[svc], key)
	if len(s.byService[svc]) == 0 {
		delete(s.byService, svc)
	}
	delete(s.owner, key)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
