package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Issue 42: the replicas section is off by default, parsed whole, and a bad one is refused at
// load with its key and line.
func TestReplicasKeys(t *testing.T) {
	if d := Default().Replicas; d.Enabled || d.Address != "127.0.0.1:6379" || d.KeyPrefix != "moonbridge:" || d.JoinWait != 50*time.Millisecond {
		t.Errorf("defaults %+v: want off, 127.0.0.1:6379, prefix moonbridge:, a join waiting at most 50ms", d)
	}
	secret := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	text := "replicas:\n  enabled: true\n  address: redis.internal:6380\n  username: mb\n  password_file: " + secret +
		"\n  tls:\n    enabled: true\n    ca_file: " + secret + "\n    server_name: redis.example.net\n  key_prefix: \"net1:\"\n" +
		"  id: pod-1\n  login_egress: nat-eu\n  timeout: 1s\n  join_wait: 20ms\n  heartbeat: 500ms\n"
	cfg, err := Parse([]byte(text), noEnv)
	want := Replicas{Enabled: true, Address: "redis.internal:6380", Username: "mb", PasswordFile: secret,
		TLS:       ReplicasTLS{Enabled: true, CAFile: secret, ServerName: "redis.example.net"},
		KeyPrefix: "net1:", ID: "pod-1", LoginEgress: "nat-eu", Timeout: time.Second, JoinWait: 20 * time.Millisecond, Heartbeat: 500 * time.Millisecond}
	if err != nil || !reflect.DeepEqual(cfg.Replicas, want) {
		t.Errorf("got %+v, %v", cfg.Replicas, err)
	}
	on := "replicas:\n  enabled: true\n"
	for text, want := range map[string]string{
		on + "  address: redis\n":                                        `line 3: replicas.address: "redis" is not HOST:PORT`,
		on + "  key_prefix: \"\"\n":                                      `line 3: replicas.key_prefix: "" must be non-empty`,
		on + "  id: \"a b\"\n":                                           `line 3: replicas.id: "a b" may not hold spaces`,
		on + "  login_egress: \"a b\"\n":                                 `line 3: replicas.login_egress: "a b" may not hold spaces`,
		on + "  timeout: 0s\n":                                           "line 3: replicas.timeout: must be a positive duration",
		on + "  join_wait: 2s\n":                                         "line 3: replicas.join_wait: must be a positive duration of at most 1s",
		on + "  heartbeat: 20s\n":                                        "line 3: replicas.heartbeat: must be from 100ms to 10s",
		on + "  password_file: /nonexistent/pw\n":                        "line 3: replicas.password_file: cannot read /nonexistent/pw",
		on + "  tls:\n    ca_file: /etc/hostname\n":                      "replicas.tls: ca_file and server_name are for tls.enabled: true",
		on + "  tls:\n    enabled: true\n    ca_file: /nonexistent/ca\n": "line 5: replicas.tls.ca_file: cannot read /nonexistent/ca",
		"replicas:\n  adress: x:1\n":                                     "line 2: replicas.adress",
	} {
		if _, err := Parse([]byte(text), noEnv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", text, err, want)
		}
	}
	// Off, the section's other keys are not checked: they are not used.
	if _, err := Parse([]byte("replicas:\n  address: redis\n"), noEnv); err != nil {
		t.Errorf("off: %v", err)
	}
}

// Issue 42: with replicas on, a routes API state file is named as unused (the API's routes are
// in Redis); without replicas it is not.
func TestReplicasStateFileWarning(t *testing.T) {
	cfg := Default()
	cfg.Admin.RoutesAPI.Enabled, cfg.Admin.RoutesAPI.StateFile = true, "/var/lib/moonbridge/routes.yml"
	unused := func(c Config) bool {
		return slices.ContainsFunc(c.Warnings(), func(w Warning) bool {
			return w.Kind == WarnStateFileUnused && w.Key == "admin.routes_api.state_file"
		})
	}
	if unused(cfg) {
		t.Error("a state file without replicas is named as unused")
	}
	cfg.Replicas.Enabled = true
	if !unused(cfg) {
		t.Errorf("with replicas on the state file is not named as unused: %v", cfg.Warnings())
	}
}

// Issue 42: a password_file that holds nothing (an empty Secret, mounted) is refused at load: a
// Redis that wants a password would refuse every call, one that does not would take writes
// from anyone, and moonbridge would otherwise send no AUTH without a word.
func TestReplicasEmptyPasswordFileIsRefused(t *testing.T) {
	for _, content := range []string{"", " \n"} {
		file := filepath.Join(t.TempDir(), "password")
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		text := "replicas:\n  enabled: true\n  password_file: " + file + "\n"
		want := "line 3: replicas.password_file: " + file + " is empty"
		if _, err := Parse([]byte(text), noEnv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("password file %q: error %v, want it to contain %q", content, err, want)
		}
	}
}
