package kube

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPI is an API server over TLS that serves the lists a test sets, and watch streams the
// test writes events into. There is no cluster here: these tests are as true as the fake's
// idea of the API (the shapes are those of kube-apiserver's JSON).
type fakeAPI struct {
	t       *testing.T
	srv     *httptest.Server
	caFile  string
	token   string // the token file's path
	mu      sync.Mutex
	objects map[string]*resourceState // by resource: "services", "endpointslices"
	seen    []request
	watches map[string]chan *stream
}

type resourceState struct {
	rv       string
	items    []any
	pageSize int   // 0: one page
	refuse   []int // statuses the next watch requests get, in order
}

// request is what the fake saw of one request.
type request struct {
	path  string
	query url.Values
	auth  string
}

// stream is one watch request the source opened; the test sends its events and ends it.
type stream struct {
	query  map[string]string
	auth   string
	events chan string
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{t: t, objects: map[string]*resourceState{}, watches: map[string]chan *stream{}}
	for _, r := range []string{"services", "endpointslices"} {
		f.objects[r] = &resourceState{rv: "1"}
		f.watches[r] = make(chan *stream, 16)
	}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	dir := t.TempDir()
	f.caFile, f.token = filepath.Join(dir, "ca.crt"), filepath.Join(dir, "token")
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.srv.Certificate().Raw})
	writeFile(t, f.caFile, string(caPEM))
	f.setToken("token-1")
	return f
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (f *fakeAPI) setToken(token string) { writeFile(f.t, f.token, token+"\n") }

// settings point a source at the fake, watching every namespace, with short pauses.
func (f *fakeAPI) settings() Settings {
	return Settings{
		API:              API{URL: f.srv.URL, TokenFile: f.token, CAFile: f.caFile},
		AnnotationPrefix: "moonbridge.io",
		RetryMin:         10 * time.Millisecond,
		RetryMax:         50 * time.Millisecond,
		WatchTimeout:     time.Minute,
	}
}

// setList is what the next list of resource returns.
func (f *fakeAPI) setList(resource, rv string, items ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objects[resource].rv, f.objects[resource].items = rv, items
}

func (f *fakeAPI) setPageSize(resource string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objects[resource].pageSize = n
}

// refuseWatch makes the next watch of resource answer code, with a Status.
func (f *fakeAPI) refuseWatch(resource string, code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objects[resource].refuse = append(f.objects[resource].refuse, code)
}

// requests are those seen so far of resource: lists and watches.
func (f *fakeAPI) requests(resource string) []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []request
	for _, r := range f.seen {
		if strings.HasSuffix(r.path, "/"+resource) {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeAPI) lists(resource string) int {
	n := 0
	for _, r := range f.requests(resource) {
		if r.query.Get("watch") == "" {
			n++
		}
	}
	return n
}

// nextWatch waits for the source's next watch of resource.
func (f *fakeAPI) nextWatch(resource string) *stream {
	f.t.Helper()
	select {
	case s := <-f.watches[resource]:
		return s
	case <-time.After(5 * time.Second):
		f.t.Fatalf("no watch of %s", resource)
		return nil
	}
}

func (s *stream) send(kind string, obj any) {
	line, err := json.Marshal(map[string]any{"type": kind, "object": obj})
	if err != nil {
		panic(err)
	}
	s.events <- string(line)
}

func (s *stream) end() { close(s.events) }

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	resource := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	f.mu.Lock()
	f.seen = append(f.seen, request{path: r.URL.Path, query: r.URL.Query(), auth: r.Header.Get("Authorization")})
	state, ok := f.objects[resource]
	f.mu.Unlock()
	if !ok || r.Method != http.MethodGet {
		writeStatus(w, http.StatusNotFound, "NotFound", "no such resource "+r.URL.Path)
		return
	}
	if r.URL.Query().Get("watch") == "1" {
		f.serveWatch(w, r, resource, state)
		return
	}
	f.serveList(w, r, state)
}

func (f *fakeAPI) serveList(w http.ResponseWriter, r *http.Request, state *resourceState) {
	f.mu.Lock()
	items, rv, size := state.items, state.rv, state.pageSize
	f.mu.Unlock()
	from, _ := strconv.Atoi(r.URL.Query().Get("continue"))
	meta := map[string]any{"resourceVersion": rv}
	page := selected(items, r.URL.Query().Get("labelSelector"))[from:]
	if size > 0 && len(page) > size {
		page = page[:size]
		meta["continue"] = strconv.Itoa(from + size)
	}
	if page == nil {
		page = []any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"kind": "List", "apiVersion": "v1", "metadata": meta, "items": page})
}

func (f *fakeAPI) serveWatch(w http.ResponseWriter, r *http.Request, resource string, state *resourceState) {
	f.mu.Lock()
	var code int
	if len(state.refuse) > 0 {
		code, state.refuse = state.refuse[0], state.refuse[1:]
	}
	f.mu.Unlock()
	if code != 0 {
		writeStatus(w, code, http.StatusText(code), "refused by the test")
		return
	}
	s := &stream{query: map[string]string{}, auth: r.Header.Get("Authorization"), events: make(chan string)}
	for k := range r.URL.Query() {
		s.query[k] = r.URL.Query().Get(k)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	f.watches[resource] <- s
	for {
		select {
		case line, open := <-s.events:
			if !open {
				return
			}
			fmt.Fprintln(w, line)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// selected are the items a label selector picks, as the API server picks them; the fake knows
// two forms: "KEY" (the label is set) and "KEY in (V1,V2...)".
func selected(items []any, selector string) []any {
	if selector == "" {
		return items
	}
	key, set, isSet := strings.Cut(selector, " in (")
	values := strings.Split(strings.TrimSuffix(set, ")"), ",")
	var out []any
	for _, item := range items {
		labels, _ := item.(map[string]any)["metadata"].(map[string]any)["labels"].(map[string]any)
		value, ok := labels[key].(string)
		if ok && (!isSet || slices.Contains(values, value)) {
			out = append(out, item)
		}
	}
	return out
}

func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	writeJSON(w, code, statusObject(code, reason, message))
}

func statusObject(code int, reason, message string) map[string]any {
	return map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// serviceObject is a Service as the API writes it; ports are "name:port[/UDP]".
func serviceObject(namespace, name, rv string, annotations map[string]string, ports ...string) map[string]any {
	var specPorts []any
	for _, p := range ports {
		spec, protocol, _ := strings.Cut(p, "/")
		if protocol == "" {
			protocol = "TCP"
		}
		portName, number, _ := strings.Cut(spec, ":")
		n, _ := strconv.Atoi(number)
		specPorts = append(specPorts, map[string]any{"name": portName, "protocol": protocol, "port": n, "targetPort": n})
	}
	return map[string]any{
		"kind": "Service", "apiVersion": "v1",
		"metadata": map[string]any{"name": name, "namespace": namespace, "resourceVersion": rv,
			"uid": "0b5c0f5e-" + name, "annotations": annotations, "labels": map[string]any{"app": name}},
		"spec": map[string]any{"type": "ClusterIP", "clusterIP": "10.96.0.10", "ports": specPorts,
			"selector": map[string]any{"app": name}},
		"status": map[string]any{"loadBalancer": map[string]any{}},
	}
}

// sliceEndpoint is one endpoint of an EndpointSlice; ready nil leaves the condition out.
type sliceEndpoint struct {
	addr  string
	ready *bool
}

// sliceObject is an EndpointSlice of service, whose port portName targets target.
func sliceObject(namespace, name, service, rv, portName string, target int, endpoints ...sliceEndpoint) map[string]any {
	var eps []any
	for _, e := range endpoints {
		conditions := map[string]any{}
		if e.ready != nil {
			conditions["ready"], conditions["serving"], conditions["terminating"] = *e.ready, *e.ready, !*e.ready
		}
		eps = append(eps, map[string]any{"addresses": []string{e.addr}, "conditions": conditions,
			"targetRef": map[string]any{"kind": "Pod", "name": name + "-pod"}, "nodeName": "node-1"})
	}
	return map[string]any{
		"kind": "EndpointSlice", "apiVersion": "discovery.k8s.io/v1", "addressType": "IPv4",
		"metadata": map[string]any{"name": name, "namespace": namespace, "resourceVersion": rv,
			"labels": map[string]any{serviceNameLabel: service, "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}},
		"endpoints": eps,
		"ports":     []any{map[string]any{"name": portName, "port": target, "protocol": "TCP"}},
	}
}

// bookmark is a BOOKMARK event's object: only the resourceVersion means anything.
func bookmark(kind, rv string) map[string]any {
	return map[string]any{"kind": kind, "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": rv}}
}
