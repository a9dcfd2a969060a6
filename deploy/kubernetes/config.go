package kubernetes

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// ConfigKey is the ConfigMap key that holds moonbridge's config file.
const ConfigKey = "moonbridge.yml"

// Config is what the checks need of the effective configuration moonbridge derives from the
// ConfigMap (defaults included).
type Config struct {
	// Warnings is what check-config said on stderr of a config it accepts: its warnings (each
	// one a line the pods would log at start).
	Warnings string `json:"-"`
	Admin    struct {
		Listen    string `json:"listen"`
		TokenFile string `json:"token_file"`
	} `json:"admin"`
	TLS struct {
		Cert string `json:"cert"`
		Key  string `json:"key"`
	} `json:"tls"`
	Listeners []struct {
		Listen string `json:"listen"`
	} `json:"listeners"`
	Shutdown struct {
		DrainTimeout       string `json:"drain_timeout"`
		TransferTo         string `json:"transfer_to"`
		TransferSecretFile string `json:"transfer_secret_file"`
	} `json:"shutdown"`
	Replicas struct {
		Enabled      bool   `json:"enabled"`
		Address      string `json:"address"`
		PasswordFile string `json:"password_file"`
		LoginEgress  string `json:"login_egress"`
	} `json:"replicas"`
	Discovery struct {
		Kubernetes struct {
			Enabled   bool   `json:"enabled"`
			Namespace string `json:"namespace"`
			APIURL    string `json:"api_url"`
		} `json:"kubernetes"`
	} `json:"discovery"`
}

// PodNamespace is the namespace CheckConfig's pod runs in: what an env entry from the downward
// API's metadata.namespace holds there.
const PodNamespace = "pod-namespace"

// podEnv is the container's environment as the config's ${NAME} placeholders see it: literal
// values (a path in a Secret's mount rewritten by mounts, as CheckConfig does the config's),
// PodNamespace for the pod's namespace, and a stand-in for a value from a Secret or a ConfigMap
// (check-config only needs it set).
func podEnv(s *Set, mounts map[string]string) []string {
	var env []string
	for _, e := range s.Container().Env {
		value := rewritePaths(e.Value, mounts)
		switch from := e.ValueFrom; {
		case from == nil:
		case from.FieldRef != nil && from.FieldRef.FieldPath == "metadata.namespace":
			value = PodNamespace
		default:
			value = "from-" + e.Name
		}
		env = append(env, e.Name+"="+value)
	}
	return env
}

// rewritePaths is text with each pod path of mounts replaced by its local directory.
func rewritePaths(text string, mounts map[string]string) string {
	for podPath, local := range mounts {
		text = strings.ReplaceAll(text, podPath, local)
	}
	return text
}

// DrainTimeout is shutdown.drain_timeout.
func (c Config) DrainTimeout() (time.Duration, error) {
	return time.ParseDuration(c.Shutdown.DrainTimeout)
}

// CheckConfig runs `moonbridge check-config` (binary) on the ConfigMap's config file as a pod
// would read it, with the container's environment (podEnv), so moonbridge's own loader judges
// it, and returns the effective configuration it prints, with the pod's paths, and its
// warnings. check-config reads the files the config names (certificate, admin token, transfer
// secret, Redis password): mounts maps each Secret's mount path in the pod to a local directory
// that holds that Secret's file names, and the config's paths and the env's are rewritten to
// them.
func CheckConfig(binary string, s *Set, mounts map[string]string) (Config, error) {
	text, ok := s.ConfigMap.Data[ConfigKey]
	if !ok {
		return Config{}, fmt.Errorf("ConfigMap %s has no %s", s.ConfigMap.Name, ConfigKey)
	}
	dir, err := os.MkdirTemp("", "moonbridge-config-")
	if err != nil {
		return Config{}, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, ConfigKey)
	text = rewritePaths(text, mounts)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		return Config{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(binary, "check-config", file)
	cmd.Env = append(os.Environ(), podEnv(s, mounts)...) // later entries win
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return Config{}, fmt.Errorf("moonbridge check-config of ConfigMap %s: %v: %s", s.ConfigMap.Name, err, stderr.String())
	}
	var cfg Config
	if err := yaml.Unmarshal(stdout.Bytes(), &cfg); err != nil {
		return Config{}, fmt.Errorf("reading check-config's output: %w", err)
	}
	cfg.Warnings = stderr.String()
	// Paths as the pod sees them again.
	for podPath, local := range mounts {
		for _, p := range []*string{&cfg.TLS.Cert, &cfg.TLS.Key, &cfg.Admin.TokenFile, &cfg.Shutdown.TransferSecretFile, &cfg.Replicas.PasswordFile} {
			*p = strings.Replace(*p, local, podPath, 1)
		}
	}
	return cfg, nil
}
