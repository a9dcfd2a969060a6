package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/discover/kube"
	"github.com/moonbridge/moonbridge/routes"
)

// oneServiceAPI lists one annotated Service, to requests with the bearer token, and keeps each
// watch open until the client goes.
func oneServiceAPI(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" || r.URL.Path != "/api/v1/namespaces/games/services" {
			http.Error(w, `{"kind":"Status","code":403,"reason":"Forbidden"}`, http.StatusForbidden)
			return
		}
		if r.URL.Query().Get("watch") == "1" {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, `{"kind":"ServiceList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[`+
			`{"metadata":{"name":"survival","namespace":"games","resourceVersion":"6",`+
			`"annotations":{"moonbridge.io/host":"survival.example.net"}},`+
			`"spec":{"ports":[{"name":"minecraft","protocol":"TCP","port":25565,"targetPort":25565}]}}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// With discovery.kubernetes on, the Services' routes reach the sink as the file's routes would
// be, every key but name, hosts and backends at its default; stop returns.
func TestKubeDiscoveryHandsRoutesToTheSink(t *testing.T) {
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Discovery.Kubernetes.Enabled = true
	cfg.Discovery.Kubernetes.APIURL = oneServiceAPI(t).URL
	cfg.Discovery.Kubernetes.TokenFile = token
	cfg.Discovery.Kubernetes.Namespace = "games"
	sink := fakeSink{source: kubeSource, got: make(chan []config.Route, 4)}
	stop, err := startKubeDiscovery(cfg, sink, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	want := routes.Default("survival.games.svc:25565")
	want.Name, want.Hosts = "kube/games/survival", []string{"survival.example.net"}
	select {
	case got := <-sink.got:
		if !reflect.DeepEqual(got, []config.Route{want}) {
			t.Errorf("routes\n got %+v\nwant %+v", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no routes")
	}
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("stop did not return")
	}
}

// Off, the section is not read: nothing starts, whatever its other keys say.
func TestKubeDiscoveryOff(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	cfg := config.Default()
	cfg.Discovery.Kubernetes.CAFile = "/nonexistent/ca.crt"
	stop, err := startKubeDiscovery(cfg, fakeSink{source: kubeSource, got: make(chan []config.Route)}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	stop()
}

// In a pod, the service account's files are used unless token_file and ca_file name others.
func TestKubeSettingsInAPod(t *testing.T) {
	env := map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
	getenv := func(k string) string { return env[k] }
	k := config.KubeDiscovery{Enabled: true, Namespace: "games", AnnotationPrefix: "moonbridge.io"}
	s, err := kubeSettings(k, getenv)
	want := kube.Settings{API: kube.API{URL: "https://10.96.0.1:443", TokenFile: kube.ServiceAccountToken, CAFile: kube.ServiceAccountCA},
		Namespace: "games", AnnotationPrefix: "moonbridge.io"}
	if err != nil || s != want {
		t.Errorf("got %+v, %v", s, err)
	}
	k.TokenFile, k.CAFile = "/run/token", "/run/ca.crt"
	want.API.TokenFile, want.API.CAFile = k.TokenFile, k.CAFile
	if s, err := kubeSettings(k, getenv); err != nil || s != want {
		t.Errorf("with token_file and ca_file: got %+v, %v", s, err)
	}
}

// serve refuses to start with discovery it cannot do, rather than run without the routes.
func TestServeRefusesKubeDiscoveryOutsideAPod(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	cfg := config.Default()
	cfg.Listeners[0].Addr = "127.0.0.1:0"
	cfg.Discovery.Kubernetes.Enabled = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := serve(ctx, ctx, cfg, zerolog.Nop(), func() (config.Config, error) { return cfg, nil }, process{sockets: newSockets()})
	if !errors.Is(err, kube.ErrNotInCluster) {
		t.Errorf("serve: %v, want ErrNotInCluster", err)
	}
}
