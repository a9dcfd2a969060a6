package routebook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

const testToken = "0123456789abcdef-test-token"

// apiServer serves the routes API over book with testToken.
func apiServer(t *testing.T, book *Book) (*httptest.Server, *API) {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, []byte(testToken+"\n"))
	api := NewAPI(book, tokenFile, zerolog.Nop())
	mux := http.NewServeMux()
	api.Handle(mux)
	server := httptest.NewServer(mux)
	t.Cleanup(server.Close)
	return server, api
}

// apiCall sends one request to the API at base with token ("" for none) and returns its
// status and body.
func apiCall(t *testing.T, base, method, path, token, body string) (int, string) {
	t.Helper()
	return testutil.BearerCall(t, method, base+path, token, body)
}

// decodeView reads one route as the API shows it.
func decodeView(t *testing.T, body string) routeView {
	t.Helper()
	var v routeView
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not a route view: %v\n%s", err, body)
	}
	return v
}

// requestCount reads moonbridge_routes_api_requests_total{verb,result}.
func requestCount(api *API, verb, result string) float64 {
	return valueOf(api.requests.WithLabelValues(verb, result))
}

// Each verb does what it says, on the relay too: list names every route with its origin, add
// serves a new route with the file's defaults, get shows it, change replaces it in place,
// remove takes it away.
func TestRoutesAPIVerbs(t *testing.T) {
	book, fake, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, nil)
	book.SetDiscovered("docker", []config.Route{route("docker/mc", "mc.example.net")})
	server, api := apiServer(t, book)
	call := func(method, path, body string) (int, string) {
		t.Helper()
		return apiCall(t, server.URL, method, path, testToken, body)
	}

	code, body := call("POST", "/routes", `{"name": "survival", "hosts": ["survival.example.net"], "backends": ["10.0.0.5:25565"]}`)
	if code != http.StatusCreated {
		t.Fatalf("POST /routes: %d %s", code, body)
	}
	added := decodeView(t, body)
	if added.Name != "survival" || added.Origin != originAPI || !added.Served || !strings.Contains(string(added.Route), `"balance":"failover"`) {
		t.Errorf("the added route: %+v %s", added, added.Route)
	}
	if got := fake.labels(); !slices.Equal(got, []string{"lobby", "survival", "docker/mc"}) {
		t.Errorf("after POST the relay serves %v", got)
	}

	code, body = call("GET", "/routes", "")
	var list struct{ Routes []routeView }
	if err := json.Unmarshal([]byte(body), &list); code != http.StatusOK || err != nil {
		t.Fatalf("GET /routes: %d %v %s", code, err, body)
	}
	var origins []string
	for _, v := range list.Routes {
		origins = append(origins, v.Name+"@"+v.Origin)
	}
	if want := []string{"lobby@file", "survival@api", "docker/mc@docker"}; !slices.Equal(origins, want) {
		t.Errorf("GET /routes lists %v, want %v", origins, want)
	}
	if code, body := call("GET", "/routes/docker/mc", ""); code != http.StatusOK || decodeView(t, body).Origin != "docker" {
		t.Errorf("GET /routes/docker/mc: %d %s", code, body)
	}

	code, body = call("PUT", "/routes/survival", "hosts: [survival.example.net]\nbackends: [10.0.0.6:25565]\nbalance: round-robin\n")
	if changed := decodeView(t, body); code != http.StatusOK || changed.Name != "survival" || !strings.Contains(string(changed.Route), `"10.0.0.6:25565"`) {
		t.Errorf("PUT /routes/survival (YAML, no name): %d %s", code, body)
	}
	if i := slices.Index(fake.labels(), "survival"); i != 1 || fake.routes[i].Backends[0].Addr != "10.0.0.6:25565" {
		t.Errorf("after PUT the relay serves %v, survival to %v", fake.labels(), fake.routes)
	}

	if code, body := call("DELETE", "/routes/survival", ""); code != http.StatusNoContent || body != "" {
		t.Errorf("DELETE /routes/survival: %d %q", code, body)
	}
	if code, _ := call("GET", "/routes/survival", ""); code != http.StatusNotFound {
		t.Errorf("GET of a removed route: %d, want 404", code)
	}
	if got := fake.labels(); !slices.Equal(got, []string{"lobby", "docker/mc"}) {
		t.Errorf("after DELETE the relay serves %v", got)
	}
	for verb, want := range map[string]float64{"list": 1, "get": 1, "add": 1, "change": 1, "remove": 1} {
		if got := requestCount(api, verb, "ok"); got != want {
			t.Errorf("requests{%s,ok} = %v, want %v", verb, got, want)
		}
	}
}

// Every refused request changes nothing, says why in JSON with its status, and is counted.
func TestRoutesAPIRefuses(t *testing.T) {
	book, fake, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, nil)
	server, api := apiServer(t, book)
	if code, body := apiCall(t, server.URL, "POST", "/routes", testToken, `{"name": "mine", "hosts": ["mine.example.net"], "backends": ["10.0.0.5:25565"]}`); code != http.StatusCreated {
		t.Fatalf("POST /routes: %d %s", code, body)
	}
	served := fake.labels()
	oversize := `{"name": "big", "hosts": ["big.example.net"], "backends": ["10.0.0.5:25565"], "rewrite_host": "` + strings.Repeat("x", maxRouteBody) + `"}`
	for _, tc := range []struct {
		name, method, path, token, body string
		status                          int
		verb, result, want              string
	}{
		{"no token", "GET", "/routes", "", "", 401, "list", "unauthorized", "Authorization: Bearer"},
		{"wrong token", "POST", "/routes", testToken + "x", `{"hosts": ["a.example.net"], "backends": ["b:1"]}`, 401, "add", "unauthorized", "Bearer"},
		{"bad JSON", "POST", "/routes", testToken, `{"hosts": ["a.example.net"`, 400, "add", "invalid", "not a route"},
		{"unknown key", "POST", "/routes", testToken, `{"hosts": ["a.example.net"], "backends": ["b:1"], "backend": "c:1"}`, 400, "add", "invalid", "route.backend: unknown key"},
		{"empty body", "POST", "/routes", testToken, "", 400, "add", "invalid", "empty"},
		{"invalid host", "POST", "/routes", testToken, `{"hosts": ["a*.example.net"], "backends": ["b:1"]}`, 422, "add", "invalid", `route.hosts[0]: "a*.example.net": want a name`},
		{"invalid backend", "POST", "/routes", testToken, `{"hosts": ["a.example.net"], "backends": ["b"]}`, 422, "add", "invalid", `route.backends[0]: "b" is not HOST:PORT`},
		{"invalid country", "POST", "/routes", testToken, `{"hosts": ["a.example.net"], "backends": ["b:1"], "countries": {"allow": ["DE", "EU"]}}`, 422, "add", "invalid", `route.countries: allow[1]: "EU" is not an ISO 3166-1 alpha-2 country code`},
		{"duplicate name", "POST", "/routes", testToken, `{"name": "mine", "hosts": ["a.example.net"], "backends": ["b:1"]}`, 409, "add", "conflict", `the name "mine" is taken by a route from the routes API`},
		{"a file route's name", "POST", "/routes", testToken, `{"name": "lobby", "hosts": ["a.example.net"], "backends": ["b:1"]}`, 409, "add", "conflict", "from the config file"},
		{"a file route's host", "POST", "/routes", testToken, `{"name": "a", "hosts": ["a.example.net", "Play.Example.net"], "backends": ["b:1"]}`, 409, "add", "conflict", `host "Play.Example.net" is routed by "lobby" from the config file`},
		{"oversize body", "POST", "/routes", testToken, oversize, 413, "add", "invalid", "too large"},
		{"change a file route", "PUT", "/routes/lobby", testToken, `{"hosts": ["play.example.net"], "backends": ["b:1"]}`, 409, "change", "conflict", "edit the config file"},
		{"remove a file route", "DELETE", "/routes/lobby", testToken, "", 409, "remove", "conflict", "edit the config file"},
		{"change to another name", "PUT", "/routes/mine", testToken, `{"name": "yours", "hosts": ["mine.example.net"], "backends": ["b:1"]}`, 422, "change", "invalid", "to rename a route"},
		{"change to a file host", "PUT", "/routes/mine", testToken, `{"hosts": ["play.example.net"], "backends": ["b:1"]}`, 409, "change", "conflict", "from the config file"},
		{"change no route", "PUT", "/routes/none", testToken, `{"hosts": ["none.example.net"], "backends": ["b:1"]}`, 404, "change", "not_found", `no route is named "none"`},
		{"remove no route", "DELETE", "/routes/none", testToken, "", 404, "remove", "not_found", `no route is named "none"`},
		{"get no route", "GET", "/routes/none", testToken, "", 404, "get", "not_found", `no route is named "none"`},
	} {
		code, body := apiCall(t, server.URL, tc.method, tc.path, tc.token, tc.body)
		var answer struct{ Error string }
		if err := json.Unmarshal([]byte(body), &answer); code != tc.status || err != nil || !strings.Contains(answer.Error, tc.want) {
			t.Errorf("%s: %d %s, want %d with an error saying %q", tc.name, code, body, tc.status, tc.want)
		}
		if got := requestCount(api, tc.verb, tc.result); got < 1 {
			t.Errorf("%s: requests{%s,%s} = %v, want it counted", tc.name, tc.verb, tc.result, got)
		}
	}
	if got := fake.labels(); !slices.Equal(got, served) {
		t.Errorf("after the refused requests the relay serves %v, want %v", got, served)
	}
	if _, ok := book.Find("mine"); !ok || len(book.List()) != 2 {
		t.Errorf("after the refused requests the book holds %+v", book.List())
	}
}

// A change whose state file cannot be written is not made: 500, and the relay serves what it
// served before.
func TestRoutesAPIUndoesAChangeItCannotSave(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "gone", "routes.yml") // its directory does not exist
	book, fake, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil,
		func(routes []config.Route) error { return saveAPIRoutes(state, routes) })
	server, _ := apiServer(t, book)
	code, body := apiCall(t, server.URL, "POST", "/routes", testToken, `{"name": "a", "hosts": ["a.example.net"], "backends": ["b:1"]}`)
	if code != http.StatusInternalServerError || !strings.Contains(body, "not saved, so not made") {
		t.Errorf("POST with an unwritable state file: %d %s", code, body)
	}
	if got := fake.labels(); !slices.Equal(got, []string{"lobby"}) {
		t.Errorf("after the unsaved change the relay serves %v", got)
	}
	if _, ok := book.Find("a"); ok {
		t.Error("the book holds the unsaved route")
	}
}

// The token file is read at each request: a new token works at once and the old one no longer
// does; without a readable file every request is refused.
func TestRoutesAPITokenFileIsReadEachTime(t *testing.T) {
	book, _, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, nil)
	server, api := apiServer(t, book)
	const next = "another-token-0123456789"
	writeFile(t, api.tokenFile, []byte(next))
	if code, _ := apiCall(t, server.URL, "GET", "/routes", testToken, ""); code != http.StatusUnauthorized {
		t.Errorf("the replaced token: %d, want 401", code)
	}
	if code, body := apiCall(t, server.URL, "GET", "/routes", next, ""); code != http.StatusOK {
		t.Errorf("the new token: %d %s", code, body)
	}
	if err := os.Remove(api.tokenFile); err != nil {
		t.Fatal(err)
	}
	if code, body := apiCall(t, server.URL, "GET", "/routes", next, ""); code != http.StatusServiceUnavailable || strings.Contains(body, api.tokenFile) {
		t.Errorf("without a token file: %d %s, want 503 that does not name the file", code, body)
	}
}
