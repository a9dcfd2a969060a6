package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestKubeDiscoveryKeys(t *testing.T) {
	if d := Default().Discovery.Kubernetes; !reflect.DeepEqual(d, KubeDiscovery{AnnotationPrefix: "moonbridge.io", RouteTrust: defaultRouteTrust()}) {
		t.Errorf("defaults %+v: want off, prefix moonbridge.io, in-cluster", d)
	}
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, []byte("PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	text := "discovery:\n  kubernetes:\n    enabled: true\n    namespace: games\n    annotation_prefix: mc.example.net\n" +
		"    api_url: https://127.0.0.1:6443\n    token_file: " + ca + "\n    ca_file: " + ca + "\n"
	cfg, err := Parse([]byte(text), noEnv)
	want := KubeDiscovery{Enabled: true, Namespace: "games", AnnotationPrefix: "mc.example.net", APIURL: "https://127.0.0.1:6443", TokenFile: ca, CAFile: ca,
		RouteTrust: defaultRouteTrust()}
	if err != nil || !reflect.DeepEqual(cfg.Discovery.Kubernetes, want) {
		t.Errorf("got %+v, %v", cfg.Discovery.Kubernetes, err)
	}
	on := "discovery:\n  kubernetes:\n    enabled: true\n"
	for text, want := range map[string]string{
		on + "    namespace: Games\n":               `line 4: discovery.kubernetes.namespace: "Games" is not a namespace name`,
		on + "    namespace: a.b\n":                 `discovery.kubernetes.namespace: "a.b" is not a namespace name`,
		on + "    annotation_prefix: \"\"\n":        `line 4: discovery.kubernetes.annotation_prefix: "" is not a DNS name`,
		on + "    annotation_prefix: a.io/x\n":      `discovery.kubernetes.annotation_prefix: "a.io/x" is not a DNS name`,
		on + "    api_url: 10.0.0.1:443\n":          `line 4: discovery.kubernetes.api_url: "10.0.0.1:443" is not an http:// or https:// URL`,
		on + "    ca_file: /nonexistent/ca.crt\n":   "line 4: discovery.kubernetes.ca_file: cannot read /nonexistent/ca.crt",
		on + "    token_file: /nonexistent/tok\n":   "line 4: discovery.kubernetes.token_file: cannot read /nonexistent/tok",
		"discovery:\n  kubernetes:\n    on: true\n": "line 3: discovery.kubernetes.on",
	} {
		if _, err := Parse([]byte(text), noEnv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", text, err, want)
		}
	}
	// Off, the section's other keys are not checked: they are not used.
	if _, err := Parse([]byte("discovery:\n  kubernetes:\n    namespace: Games\n"), noEnv); err != nil {
		t.Errorf("off: %v", err)
	}
}
