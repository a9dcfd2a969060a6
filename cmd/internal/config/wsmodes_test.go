package config

import (
	"strings"
	"testing"
)

// The bridge's modes: a listener's early_data is a size and raw_stream a switch, the client's
// both switches; all are off by default.
func TestWSModeKeys(t *testing.T) {
	cfg, err := Parse([]byte("listeners:\n  - listen: 127.0.0.1:443\n    protocols: [wss]\n    early_data: 2KiB\n    raw_stream: true\n"+
		"client:\n  early_data: true\n  raw_stream: true\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if l := cfg.Listeners[0]; l.EarlyData != 2048 || !l.RawStream {
		t.Errorf("listener %+v, want early_data 2048 and raw_stream", l)
	}
	if c := cfg.Client; !c.EarlyData || !c.RawStream {
		t.Errorf("client %+v, want early_data and raw_stream", c)
	}
	def := Default()
	if l, c := def.Listeners[0], def.Client; l.EarlyData != 0 || l.RawStream || c.EarlyData || c.RawStream {
		t.Errorf("defaults: listener %+v, client %+v; want every mode off", l, c)
	}
}

func TestWSModeKeyErrors(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"over 4KiB":      {"listeners:\n  - listen: :1\n    protocols: [ws]\n    early_data: 5KiB\n", "listeners[0].early_data: must be 0 (off) or at most 4KiB"},
		"not a size":     {"listeners:\n  - listen: :1\n    protocols: [ws]\n    early_data: yes\n", "line 4: listeners[0].early_data: want a size"},
		"minecraft only": {"listeners:\n  - listen: :1\n    protocols: [minecraft]\n    early_data: 1KiB\n", "listeners[0].early_data: works on ws and wss only"},
		"raw, minecraft": {"listeners:\n  - listen: :1\n    protocols: [minecraft]\n    raw_stream: true\n", "listeners[0].raw_stream: works on ws and wss only"},
		"header too small": {"websocket:\n  max_header_size: 2KiB\nlisteners:\n  - listen: :1\n    protocols: [ws]\n    early_data: 4KiB\n",
			"listeners[0].early_data: 4096 bytes are 5462 characters of the upgrade request's header, over websocket.max_header_size (2048)"},
		"client string": {"client:\n  early_data: maybe\n", `line 2: client.early_data: want true or false, not "maybe"`},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.yaml), noEnv); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// websocket.subprotocols lists what third-party clients may be answered with: tokens, or "*";
// moonbridge's own values are not listed. None by default.
func TestSubprotocolsKey(t *testing.T) {
	cfg, err := Parse([]byte("websocket:\n  subprotocols: [binary, \"*\"]\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.WebSocket.Subprotocols; len(got) != 2 || got[0] != "binary" || got[1] != "*" {
		t.Errorf("subprotocols %q, want [binary *]", got)
	}
	if def := Default().WebSocket.Subprotocols; len(def) != 0 {
		t.Errorf("default subprotocols %q, want none", def)
	}
	for yaml, want := range map[string]string{
		"websocket:\n  subprotocols: [\"a b\"]\n":        "websocket.subprotocols[0]: \"a b\": want a token",
		"websocket:\n  subprotocols: [ok, moonbridge]\n": "websocket.subprotocols[1]: \"moonbridge\": values starting with \"moonbridge\" are moonbridge's own",
	} {
		if _, err := Parse([]byte(yaml), noEnv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", yaml, err, want)
		}
	}
}
