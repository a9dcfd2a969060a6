package kubeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/test/kubeapi/cluster"
)

// moonbridgeBinary is the proxy the tests that run it start: $MOONBRIDGE_BIN (make test-kube
// passes bin/moonbridge-purego, as make test-deploy does), else one built once from this
// repository into scratch.
var moonbridgeBinary = sync.OnceValues(func() (string, error) {
	if bin := os.Getenv("MOONBRIDGE_BIN"); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(scratch, "moonbridge")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/moonbridge")
	cmd.Dir, cmd.Env = filepath.Join("..", ".."), append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/moonbridge: %v\n%s", err, out)
	}
	return bin, nil
})

// routesToken is the routes API's token in the proxy's config.
const routesToken = "routes-api-token"

// serveKube runs `moonbridge serve` with discovery.kubernetes on c's namespace ns as the user
// with token, the admin endpoint and its routes API on loopback, until the test ends; it
// returns the proxy's log and the admin endpoint's URL.
func serveKube(t *testing.T, c *cluster.Cluster, token, ns string) (*testutil.SyncBuffer, string) {
	t.Helper()
	bin, err := moonbridgeBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	config := fmt.Sprintf(`log: {format: json}
listeners: [{listen: "127.0.0.1:0", protocols: [minecraft]}]
routes: [{hosts: [file.example.net], backends: ["127.0.0.1:9"]}]
admin:
  listen: 127.0.0.1:0
  routes_api: {enabled: true, token_file: %q}
discovery:
  kubernetes: {enabled: true, namespace: %q, api_url: %q, token_file: %q, ca_file: %q}
`, write("routes-token", routesToken), ns, c.URL, write("kube-token", token), c.CAFile)
	logs := &testutil.SyncBuffer{}
	cmd := exec.Command(bin, "serve", "--config", write("moonbridge.yml", config))
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { stopServe(t, cmd, exited, logs) })
	var addr string
	if !testutil.Within(routeBound, func() bool { addr = logField(logs.String(), "Admin endpoint", "addr"); return addr != "" }) {
		t.Fatalf("no admin endpoint; the proxy's log:\n%s", logs.String())
	}
	return logs, "http://" + addr
}

// stopServe ends the proxy with SIGTERM, as a pod's stop does, and kills it after a bound.
func stopServe(t *testing.T, cmd *exec.Cmd, exited <-chan error, logs *testutil.SyncBuffer) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("moonbridge serve: %v; its log:\n%s", err, logs.String())
		}
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Errorf("moonbridge serve did not stop within a minute of SIGTERM")
	}
}

// logField is field of the first JSON log line whose message starts with prefix, or "".
func logField(log, prefix, field string) string {
	for line := range strings.SplitSeq(log, "\n") {
		var fields map[string]any
		if json.Unmarshal([]byte(line), &fields) != nil {
			continue
		}
		if msg, _ := fields["message"].(string); strings.HasPrefix(msg, prefix) {
			value, _ := fields[field].(string)
			return value
		}
	}
	return ""
}

// The proxy itself, run as a pod would be with discovery.kubernetes: an annotated Service's
// route shows in GET /routes with origin kubernetes; one in endpoints mode, with a Role that
// does not let it read EndpointSlices, keeps its route and the log says what to grant.
func TestServeRoutesAnAnnotatedServiceAndNamesAMissingGrant(t *testing.T) {
	c := needCluster(t)
	client := admin(t, c)
	ns := namespace(t, client, "serve")
	grant(t, client, ns, watcher.Name, readServices)
	createService(t, client, minecraftService(ns, "survival", map[string]string{hostAnnotation: "survival.example.net"}))
	createService(t, client, minecraftService(ns, "lobby", map[string]string{
		hostAnnotation: "lobby.example.net", backendsAnnotation: "endpoints"}))
	logs, adminURL := serveKube(t, c, watcher.Token, ns)

	for _, name := range []string{"survival", "lobby"} {
		path := "/routes/kube/" + ns + "/" + name
		var code int
		var body string
		ok := testutil.Within(routeBound, func() bool {
			code, body = testutil.BearerCall(t, http.MethodGet, adminURL+path, routesToken, "")
			return code == http.StatusOK
		})
		if !ok {
			t.Fatalf("GET %s: %d %s; the proxy's log:\n%s", path, code, body, logs.String())
		}
		var route struct {
			Origin string `json:"origin"`
			Served bool   `json:"served"`
			Route  struct {
				Backends []string `json:"backends"`
			} `json:"route"`
		}
		if err := json.Unmarshal([]byte(body), &route); err != nil {
			t.Fatalf("GET %s: %v\n%s", path, err, body)
		}
		backends, want := route.Route.Backends, name+"."+ns+".svc:25565"
		if route.Origin != "kubernetes" || !route.Served || len(backends) != 1 || backends[0] != want {
			t.Errorf("GET %s: origin %q, served %v, backends %v; want kubernetes, served, [%s]\n%s", path, route.Origin, route.Served, backends, want, body)
		}
	}
	if !testutil.Within(routeBound, func() bool {
		return hasLine(logs.String(), `"level":"error"`, "endpointslices", "list and watch", "namespace "+ns)
	}) {
		t.Errorf("no error naming the missing grant; the proxy's log:\n%s", logs.String())
	}
}
