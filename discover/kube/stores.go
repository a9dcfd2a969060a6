package kube

import (
	"errors"
	"net"
	"strconv"

	"github.com/rs/zerolog"
)

// serviceStore keeps the annotated Services whose annotations parse, by NAMESPACE/NAME.
type serviceStore struct {
	keys   annotationKeys
	routes map[string]annotated
	// refused is the error last logged for a Service left out, so that it is logged once per
	// change, not at each status update.
	refused map[string]string
	synced  bool // the first list arrived
	log     zerolog.Logger
}

func newServiceStore(prefix string, log zerolog.Logger) *serviceStore {
	return &serviceStore{keys: newAnnotationKeys(prefix), routes: map[string]annotated{}, refused: map[string]string{}, log: log}
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

// wantEndpoints says whether a route takes its backends from EndpointSlices.
func (s *serviceStore) wantEndpoints() bool {
	for _, a := range s.routes {
		if a.endpoints {
			return true
		}
	}
	return false
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

// sliceStore keeps EndpointSlices by their Service, then by their own NAMESPACE/NAME.
type sliceStore struct {
	byService map[string]map[string]slice
	owner     map[string]string // slice key → its Service's key
}

func newSliceStore() *sliceStore {
	return &sliceStore{byService: map[string]map[string]slice{}, owner: map[string]string{}}
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
