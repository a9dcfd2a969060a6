package docker

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// fakeEngine serves the part of the Engine API the package uses, on a unix socket, with
// containers and an events stream the test controls.
type fakeEngine struct {
	t        *testing.T
	endpoint Endpoint
	oldest   string // MinAPIVersion

	mu         sync.Mutex
	containers map[string]container
	streams    []chan event   // one per open /events
	calls      []string       // "POST /v1.41/containers/x/start", every request
	refuse     map[string]int // path: status to answer it with
}

func newFakeEngine(t *testing.T) *fakeEngine {
	t.Helper()
	ln, path := testutil.UnixListener(t)
	e := &fakeEngine{t: t, endpoint: Endpoint{Network: "unix", Address: path}, oldest: "1.24",
		containers: map[string]container{}, refuse: map[string]int{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(e.serve))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() { e.dropStreams(); srv.Close() })
	return e
}

func (e *fakeEngine) serve(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.calls = append(e.calls, r.Method+" "+r.URL.Path)
	status, refused := e.refuse[r.URL.Path]
	e.mu.Unlock()
	path := r.URL.Path
	switch {
	case refused:
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"message": "refused by the test"})
	case path == "/version":
		json.NewEncoder(w).Encode(map[string]string{"ApiVersion": "1.47", "MinAPIVersion": e.oldest})
	case strings.HasSuffix(path, "/containers/json"):
		e.list(w, r)
	case strings.HasSuffix(path, "/events"):
		e.stream(w, r)
	case r.Method == http.MethodPost && (strings.HasSuffix(path, "/start") || strings.HasSuffix(path, "/stop")):
		e.startStop(w, path)
	default:
		http.NotFound(w, r)
	}
}

// list answers GET /containers/json?all=1 with the containers that have the filter's label.
func (e *fakeEngine) list(w http.ResponseWriter, r *http.Request) {
	var filters map[string][]string
	if r.URL.Query().Get("all") != "1" || json.Unmarshal([]byte(r.URL.Query().Get("filters")), &filters) != nil || len(filters["label"]) != 1 {
		http.Error(w, `{"message":"want all=1 and one label filter"}`, http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	out := []container{}
	for _, c := range e.containers {
		if _, ok := c.Labels[filters["label"][0]]; ok {
			out = append(out, c)
		}
	}
	e.mu.Unlock()
	json.NewEncoder(w).Encode(out)
}

// stream answers GET /events with the events the test emits, until it drops the stream.
func (e *fakeEngine) stream(w http.ResponseWriter, r *http.Request) {
	var filters map[string][]string
	if json.Unmarshal([]byte(r.URL.Query().Get("filters")), &filters) != nil || !strings.Contains(strings.Join(filters["type"], ","), "container") {
		http.Error(w, `{"message":"want a type filter with container"}`, http.StatusBadRequest)
		return
	}
	events := make(chan event, 16)
	e.mu.Lock()
	e.streams = append(e.streams, events)
	e.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	enc := json.NewEncoder(w)
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, open := <-events:
			if !open {
				return
			}
			enc.Encode(ev)
			w.(http.Flusher).Flush()
		}
	}
}

func (e *fakeEngine) startStop(w http.ResponseWriter, path string) {
	parts := strings.Split(path, "/") // "", v1.41, containers, id, action
	e.mu.Lock()
	c, ok := e.containers[parts[3]]
	e.mu.Unlock()
	switch {
	case !ok:
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"message": "No such container: " + parts[3]})
	case (c.State == "running") == (parts[4] == "start"):
		w.WriteHeader(http.StatusNotModified)
	default:
		c.State = map[string]string{"start": "running", "stop": "exited"}[parts[4]]
		e.put(c)
		w.WriteHeader(http.StatusNoContent)
	}
}

// put adds or replaces a container, without an event.
func (e *fakeEngine) put(c container) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.containers[c.ID] = c
}

func (e *fakeEngine) remove(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.containers, id)
}

// emit sends an event to every open stream.
func (e *fakeEngine) emit(action, id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ev := event{Type: "container", Action: action}
	ev.Actor.ID = id
	for _, s := range e.streams {
		s <- ev
	}
}

// dropStreams ends every open events stream.
func (e *fakeEngine) dropStreams() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.streams {
		close(s)
	}
	e.streams = nil
}

func (e *fakeEngine) openStreams() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.streams)
}

func (e *fakeEngine) called() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.calls...)
}

// running is a running container with labels, on network net with address ip.
func running(id, name, netName, ip string, labels map[string]string) container {
	c := container{ID: id, Names: []string{"/" + name}, Labels: labels, State: "running"}
	c.NetworkSettings.Networks = map[string]network{netName: {IPAddress: ip}}
	return c
}

// stopped is c exited, with no address on its networks (as the engines list it).
func stopped(c container) container {
	c.State = "exited"
	nets := map[string]network{}
	for name := range c.NetworkSettings.Networks {
		nets[name] = network{}
	}
	c.NetworkSettings.Networks = nets
	return c
}
