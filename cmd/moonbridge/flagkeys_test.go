package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// An invalid value given by a flag is reported under the flag's name, not the config key it
// sets, and stays an *InvalidError; a key the file set keeps its name and line.
func TestFlagErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		command string
		flags   commandFlags
		args    []string
		want    string
	}{
		{"serve", new(serveFlags), []string{"--listen", "127.0.0.1:70000"}, `--listen: "127.0.0.1:70000": the port must be a number from 0 to 65535`},
		{"serve", new(serveFlags), []string{"--backend", "127.0.0.1:0"}, "--backend: "},
		{"serve", new(serveFlags), []string{"--tls-provider", "openssl"}, `--tls-provider: "openssl" is not one of`},
		{"serve", new(serveFlags), []string{"--ws-path", "mc"}, `--ws-path: "mc" must start with /`},
		{"serve", new(serveFlags), []string{"--log-level", "loud"}, `--log-level: "loud" is not one of`},
		{"client", new(clientFlags), []string{"--url", "wss://play.example.net/mc", "--listen", "localhost"}, "--listen: "},
		{"client", new(clientFlags), []string{"--url", "http://play.example.net/"}, `--url: "http://play.example.net/" is not ws://`},
		{"client", new(clientFlags), []string{"--url", "wss://a.example/mc", "--header", "X-A: 1", "--header", "no colon"}, `--header: "no colon" is not "Name: value"`},
		{"client", new(clientFlags), []string{"--url", "wss://a.example/mc", "--tls-min", "1.1"}, `--tls-min: "1.1" is not one of`},
		{"client", new(clientFlags), []string{"--url", "wss://a.example/mc", "--hello-wait", "soon"}, `--hello-wait: "soon" is not a duration`},
		{"client", new(clientFlags), []string{"--url", "wss://a.example/mc", "--hello-wait", "0s"}, `--hello-wait: must be a positive duration`},
	} {
		_, err := parseCommandLine(tc.command, tc.flags, tc.args...)
		var invalid *config.InvalidError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &invalid) {
			t.Errorf("%s %v: %v, want an *InvalidError with %q", tc.command, tc.args, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), invalid.Key) {
			t.Errorf("%s %v: %v names the key %s", tc.command, tc.args, err, invalid.Key)
		}
	}
	file := filepath.Join(t.TempDir(), "moonbridge.yml")
	writeFile(t, file, []byte("websocket:\n  path: mc\n"))
	_, err := parseCommandLine("serve", new(serveFlags), "--config", file, "--listen", "127.0.0.1:0")
	if err == nil || !strings.Contains(err.Error(), "line 2: websocket.path") {
		t.Errorf("a file's mistake beside a flag: %v, want its key and line", err)
	}
}
