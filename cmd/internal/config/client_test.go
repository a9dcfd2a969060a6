package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestClientSection(t *testing.T) {
	yaml := "client:\n  url: wss://play.example.test/mc\n  connect: 198.51.100.7:443\n" +
		"  headers: [\"X-Player-Region: eu\"]\n  token: ${MB_TOKEN}\n  tls_min: \"1.3\"\n"
	lookup := func(name string) (string, bool) { return "s3cret", name == "MB_TOKEN" }
	cfg, err := Parse([]byte(yaml), lookup)
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Client
	if c.URL != "wss://play.example.test/mc" || c.Connect != "198.51.100.7:443" || c.TLSMin != "1.3" || c.Listen != "127.0.0.1:25565" {
		t.Errorf("client section %+v", c)
	}
	h, err := c.HTTPHeader()
	if err != nil || h.Get("Authorization") != "Bearer s3cret" || h.Get("X-Player-Region") != "eu" {
		t.Errorf("headers %v (%v)", h, err)
	}
}

func TestClientSectionErrors(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"scheme":       {"client:\n  url: https://play.example.test/mc\n", "client.url"},
		"connect":      {"client:\n  connect: edge.example.test\n", `client.connect: "edge.example.test" is not HOST:PORT`},
		"tls_min":      {"client:\n  tls_min: \"1.1\"\n", "client.tls_min"},
		"header":       {"client:\n  headers: [\"no colon\"]\n", "client.headers[0]"},
		"header name":  {"client:\n  headers: [\"Bad Name: x\"]\n", "client.headers[0]"},
		"token twice":  {"client:\n  token: t\n  headers: [\"Authorization: Basic x\"]\n", "client.token"},
		"unknown key":  {"client:\n  proxy: x\n", `line 2: client.proxy: unknown key`},
		"insecure str": {"client:\n  insecure: maybe\n", `line 2: client.insecure: want true or false, not "maybe"`},
		"ca missing":   {"client:\n  ca: /nonexistent/ca.pem\n", "line 2: client.ca: cannot read /nonexistent/ca.pem: no such file"},
		"connect port": {"client:\n  connect: edge.example.test:0\n", "the port must be a number from 1 to 65535"},
		"hello_wait 0": {"client:\n  hello_wait: 0s\n", "line 2: client.hello_wait: must be a positive duration such as 10s"},
		"hello_wait n": {"client:\n  hello_wait: 10\n", "line 2: client.hello_wait: "},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.yaml), noEnv); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// A client section written with File reads back as it was, with the token a token file held
// written in, and hello_wait as a duration.
func TestClientFileRoundTrip(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "alice.token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Default().Client
	c.URL, c.TokenFile, c.HelloWait, c.Headers = "wss://play.example.test/mc", tokenFile, 45*time.Second, []string{"X-Region: eu"}
	body, err := c.File()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "hello_wait: 45s") || strings.Contains(string(body), tokenFile) {
		t.Errorf("file %s", body)
	}
	cfg, err := Parse(body, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := c
	want.Token, want.TokenFile = "s3cret", ""
	if !reflect.DeepEqual(cfg.Client, want) {
		t.Errorf("read back %+v, want %+v", cfg.Client, want)
	}
	c.TokenFile = filepath.Join(t.TempDir(), "missing.token")
	if _, err := c.File(); err == nil || !strings.Contains(err.Error(), "client.token_file") {
		t.Errorf("a missing token file: %v", err)
	}
}
