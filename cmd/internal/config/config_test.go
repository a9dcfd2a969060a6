package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func noEnv(string) (string, bool) { return "", false }

func TestEmptyFileGivesDefaults(t *testing.T) {
	cfg, err := Parse(nil, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	def := Default()
	if !reflect.DeepEqual(cfg.WebSocket, def.WebSocket) || cfg.Log != def.Log || cfg.TLS.Provider != "auto" {
		t.Errorf("empty file: got %+v, want defaults %+v", cfg, def)
	}
	if cfg.Listeners[0].Addr != "127.0.0.1:25577" || cfg.Routes[0].Backends[0] != "127.0.0.1:25565" {
		t.Errorf("default listener/route: %+v %+v", cfg.Listeners, cfg.Routes)
	}
}

func TestFileOverridesOnlyWhatItSets(t *testing.T) {
	cfg, err := Parse([]byte("websocket:\n  keepalive: 10s\n  max_message: 4MiB\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.WebSocket.Keepalive != 10*time.Second || cfg.WebSocket.MaxMessage != 4<<20 {
		t.Errorf("got %+v", cfg.WebSocket)
	}
	if cfg.WebSocket.Path != "/mc" || cfg.WebSocket.DeadAfter != 3 {
		t.Errorf("unset keys lost their defaults: %+v", cfg.WebSocket)
	}
}

func TestStrictErrorsNameKeyAndLine(t *testing.T) {
	cases := map[string]struct{ yaml, want string }{
		"unknown key": {"log:\n  level: info\n  colour: red\n", `line 3: log.colour: unknown key; the keys in log are format, level`},
		"wrong type":  {"websocket:\n  dead_after: many\n", `line 2: websocket.dead_after: want a whole number, not "many"`},
		"bad enum":    {"tls:\n  provider: openssl\n", `tls.provider: "openssl" is not one of auto, boringssl, go`},
		"records":     {"tls:\n  record_layer: kernel\n", `tls.record_layer: "kernel" is not one of boringssl-ssl, aead`},
		"bad size":    {"websocket:\n  max_message: lots\n", `line 2: websocket.max_message: want a size such as 65536, 64KiB or 16MiB`},
		"small size":  {"websocket:\n  max_message: 1MiB\n", "websocket.max_message"},
		"bad listen":  {"listeners:\n  - listen: nowhere\n    protocols: [ws]\n", `listeners[0].listen: "nowhere" is not HOST:PORT`},
		"bad proto":   {"listeners:\n  - listen: :1\n    protocols: [http]\n", "listeners[0].protocols[0]"},
		"half tls":    {"tls:\n  cert: a.pem\n", "tls.cert and tls.key go together"},
		"bad header":  {"client_ip_headers: [X-Real IP]\n", `client_ip_headers[0]: "X-Real IP" is not an HTTP header name`},
		"twice":       {"client_ip_headers: [X-Real-IP, x-real-ip]\n", `client_ip_headers[1]: "x-real-ip" is listed twice`},
		"data path":   {"relay:\n  data_path: epoll\n", `line 2: relay.data_path: "epoll" is not one of auto, loop, goroutines`},
		"loops":       {"relay:\n  loops: -2\n", `line 2: relay.loops: must be 0 (one per CPU Go uses) or positive`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), noEnv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestClientIPHeadersEmptyMeansNone(t *testing.T) {
	cfg, err := Parse([]byte("client_ip_headers: []\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientIPHeaders == nil || len(cfg.ClientIPHeaders) != 0 {
		t.Errorf("client_ip_headers: [] gave %#v, want an empty list", cfg.ClientIPHeaders)
	}
	cfg, _ = Parse([]byte("client_ip_headers: [CF-Connecting-IP]\n"), noEnv)
	if len(cfg.ClientIPHeaders) != 1 {
		t.Errorf("a list of one gave %v", cfg.ClientIPHeaders)
	}
}

// No header is believed unless the file names it (issue 13, defect 7: the default list let a
// player behind nginx choose its address with CF-Connecting-IP).
func TestClientIPHeadersDefaultIsNone(t *testing.T) {
	if got := Default().ClientIPHeaders; len(got) != 0 {
		t.Errorf("default client_ip_headers %v, want none", got)
	}
}

func TestInvalidErrorIsTyped(t *testing.T) {
	_, err := Parse([]byte("log:\n  format: xml\n"), noEnv)
	var invalid *InvalidError
	if !errors.As(err, &invalid) || invalid.Key != "log.format" {
		t.Fatalf("want *InvalidError for log.format, got %v", err)
	}
}

func TestEnvironmentPlaceholders(t *testing.T) {
	dir := t.TempDir() // the files must exist: validation reads them
	certFile, keyFile := touch(t, dir, "cert.pem"), touch(t, dir, "key.pem")
	env := map[string]string{"MB_KEY": keyFile}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	raw := "tls:\n  cert: ${MB_CERT:" + certFile + "} # ${NOT_EXPANDED}\n  key: ${MB_KEY}\n# ${ALSO_A_COMMENT}\n"
	cfg, err := Parse([]byte(raw), lookup)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TLS.Cert != certFile || cfg.TLS.Key != keyFile {
		t.Errorf("got cert %q key %q", cfg.TLS.Cert, cfg.TLS.Key)
	}
	_, err = Parse([]byte("log:\n  level: info\ntls:\n  key: ${MISSING}\n"), lookup)
	var unset *UnsetVariableError
	if !errors.As(err, &unset) || unset.Name != "MISSING" || unset.Line != 4 {
		t.Fatalf("want UnsetVariableError MISSING at line 4, got %v", err)
	}
}

func TestExampleFileIsValidAndMatchesDefaults(t *testing.T) {
	cfg, err := Load(filepath.Join("..", "..", "..", "moonbridge.example.yml"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := cfg.Marshal()
	want, _ := Default().Marshal()
	if string(got) != string(want) {
		t.Errorf("the example file does not document the defaults:\nexample:\n%s\ndefaults:\n%s", got, want)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "absent.yml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("want ErrNotExist, got %v", err)
	}
}

// An empty file (a truncated write) is refused, not read as the defaults.
func TestLoadEmptyFileIsRefused(t *testing.T) {
	for name, content := range map[string]string{"0 bytes": "", "blank lines": "\n  \n"} {
		path := filepath.Join(t.TempDir(), "moonbridge.yml")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); !errors.Is(err, ErrEmptyFile) {
			t.Errorf("%s: want ErrEmptyFile, got %v", name, err)
		}
	}
}
