package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/relay"
)

// What serve would refuse, Parse refuses, naming the key and its line in words a server owner
// understands (issue 13, defect 8: check-config passed these, or answered in Go's terms).
func TestErrorsServeWouldMeetNameKeyAndLine(t *testing.T) {
	cases := map[string]struct{ yaml, want string }{
		"listen port": {"listeners:\n  - listen: 127.0.0.1:70000\n    protocols: [ws]\n",
			`line 2: listeners[0].listen: "127.0.0.1:70000": the port must be a number from 0 to 65535`},
		"backend port": {"routes:\n  - hosts: ['*']\n    backends:\n      - 127.0.0.1:25565\n      - 127.0.0.1:99999\n",
			`line 5: routes[0].backends[1]: "127.0.0.1:99999": the port must be a number from 1 to 65535`},
		"backend port 0": {"routes:\n  - hosts: ['*']\n    backends: [127.0.0.1:0]\n", "routes[0].backends[0]"},
		"admin port":     {"admin:\n  listen: :http\n", `line 2: admin.listen: ":http": the port must be a number`},
		"missing cert": {"tls:\n  cert: /nonexistent/fullchain.pem\n  key: /nonexistent/privkey.pem\n",
			"line 2: tls.cert: cannot read /nonexistent/fullchain.pem: no such file or directory"},
		"missing key":     {"tls:\n  cert: /nonexistent/a.pem\n  key: /nonexistent/b.pem\n", "line 3: tls.key: cannot read /nonexistent/b.pem"},
		"missing extra":   {"tls:\n  certificates:\n    - cert: /nonexistent/c.pem\n      key: /nonexistent/k.pem\n", "line 3: tls.certificates[0].cert: cannot read"},
		"missing favicon": {"fallback:\n  favicon: /nonexistent/icon.png\n", "line 2: fallback.favicon: cannot read /nonexistent/icon.png"},
		"number duration": {"limits:\n  dial_timeout: 5\n", `line 2: limits.dial_timeout: want a duration such as 5s, 1m30s or 500ms, not "5"`},
		"word duration":   {"limits:\n  dial_timeout: 5 parsecs\n", `line 2: limits.dial_timeout: want a duration such as 5s`},
		"list duration":   {"websocket:\n  keepalive: [30s]\n", "line 2: websocket.keepalive: want a duration such as 5s, 1m30s or 500ms, not a list"},
		"zero duration":   {"limits:\n  handshake_timeout: 0s\n", "line 2: limits.handshake_timeout: must be positive"},
		"fraction":        {"limits:\n  max_connections: 1.5\n", `line 2: limits.max_connections: want a whole number, not "1.5"`},
		"proxy_header on": {"listeners:\n  - listen: :1\n    protocols: [ws]\n    proxy_header: on\n",
			`line 4: listeners[0].proxy_header: "on" is not one of none, refuse-untrusted, discard-untrusted`},
		"old listener key": {"listeners:\n  - listen: :1\n    protocols: [ws]\n    proxy_protocol: reject\n",
			"line 4: listeners[0].proxy_protocol: this key is now proxy_header"},
		"old route key": {"routes:\n  - hosts: ['*']\n    backends: ['b:1']\n    proxy_protocol: 2\n",
			"line 4: routes[0].proxy_protocol: this key is now send_proxy"},
		"send_proxy 2": {"routes:\n  - hosts: ['*']\n    backends: ['b:1']\n    send_proxy: 2\n",
			`line 4: routes[0].send_proxy: "2" is not one of none, v1, v2`},
		"CIDR":            {"trusted_proxies:\n  - 10.0.0.0/8\n  - 10.0.0.0/33\n", `line 3: trusted_proxies[1]: "10.0.0.0/33" is not a CIDR`},
		"enum line":       {"log:\n  level: info\n  format: xml\n", `line 3: log.format: "xml" is not one of auto, console, json`},
		"list not map":    {"log: [a]\n", "line 1: log: want keys and values (key: value), not a list"},
		"map not list":    {"listeners: {listen: ':1'}\n", "line 1: listeners: want a list"},
		"two documents":   {"log: {level: info}\n---\nlog: {level: debug}\n", "want one YAML document, found 2"},
		"omitted in item": {"listeners:\n  - listen: 127.0.0.1:1\n", "line 2: listeners[0].protocols: name at least one"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), noEnv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "Go ") {
				t.Errorf("error speaks Go: %v", err)
			}
		})
	}
}

// A listener that leaves proxy_header out has it none, and the effective config says so.
func TestOmittedProxyHeaderIsNone(t *testing.T) {
	cfg, err := Parse([]byte("listeners:\n  - listen: 127.0.0.1:25577\n    protocols: [minecraft]\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Listeners[0].Proxy; got != relay.ProxyOff {
		t.Errorf("proxy_header %q, want none", got)
	}
	out, err := cfg.Marshal()
	if err != nil || !strings.Contains(string(out), "proxy_header: none") {
		t.Errorf("effective config (%v):\n%s", err, out)
	}
}

func TestFilesThatExistPass(t *testing.T) {
	dir := t.TempDir()
	yaml := "tls:\n  cert: " + touch(t, dir, "cert.pem") + "\n  key: " + touch(t, dir, "key.pem") + "\n"
	if _, err := Parse([]byte(yaml), noEnv); err != nil {
		t.Errorf("existing files refused: %v", err)
	}
	if _, err := Parse([]byte("fallback:\n  favicon: "+dir+"\n"), noEnv); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory as favicon: %v", err)
	}
}

// touch makes an empty file in dir and returns its path.
func touch(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A syntax error names the line of the mistake: a list or map left open is the line of its
// last item, not the next line's key where the parser noticed it.
func TestSyntaxErrorsNameTheLineOfTheMistake(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"open list": {"listeners:\n  - listen: 127.0.0.1:25577\n    protocols: [minecraft, ws\nroutes: []\n",
			"[3:28] the list is not closed after this"},
		"open map":      {"log: {level: info\nadmin: {}\n", "[1:14] the map is not closed after this"},
		"missing colon": {"log:\n  level: info\nadmin\n", "[3:1] "},
		"tab":           {"log:\n\tlevel: info\n", "[2:1] "},
		"open quote":    {"log:\n  level: \"info\n  format: json\n", "[2:10] "},
	} {
		_, err := Parse([]byte(tc.yaml), noEnv)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to start with %q", name, err, tc.want)
		}
	}
}

// A host that is no name, wildcard or "*" is refused at load with its line (issue 38: check-config
// passed "bad host!", "a..b" and "play.test:25565").
func TestHostsThatAreNoNamesNameTheirLine(t *testing.T) {
	for _, host := range []string{"bad host!", "a..b", "play.test:25565", "*.", "-a.example.net", strings.Repeat("a", 64) + ".net"} {
		text := "routes:\n  - hosts: ['*']\n    backends: ['b:1']\n  - hosts:\n      - play.example.net\n      - '" + host + "'\n    backends: ['b:2']\n"
		_, err := Parse([]byte(text), noEnv)
		if want := `line 6: routes[1].hosts[1]: "` + host + `": want a name`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("host %q: %v, want %q", host, err, want)
		}
	}
}

// A document the YAML library panics on (a tag with no value, found by FuzzParse) is refused
// with an error, from the file and from a routes API body alike.
func TestDecoderPanicIsAnError(t *testing.T) {
	doc := []byte("listeners:\n  - listen: '[:c1]: )57)'\n    protocols: !000 ")
	_, err := Parse(doc, noEnv)
	var panicked *DecoderPanicError
	if !errors.As(err, &panicked) {
		t.Fatalf("Parse: %v, want a DecoderPanicError", err)
	}
	var r Route
	if _, err := decode([]byte("hosts: ['a.example.net']\nbackends: !000 "), "route", &r); !errors.As(err, &panicked) {
		t.Fatalf("a route: %v, want a DecoderPanicError", err)
	}
}
