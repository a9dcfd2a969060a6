package config

import (
	"os"
	"testing"
)

// FuzzParse: any input either fails with an error or gives a valid config that survives a
// round trip through Marshal; it never panics.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile("../../../moonbridge.example.yml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte("log:\n  level: debug\n"))
	f.Add([]byte("websocket:\n  keepalive: ${KA:10s}\n  max_message: 4MiB\n"))
	f.Add([]byte("listeners:\n  - listen: '[::1]:25577'\n    protocols: [ws]\n"))
	f.Add([]byte("routes: [{hosts: ['*.a.net'], backends: ['b:1'], send_proxy: v2}]\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := Parse(raw, func(string) (string, bool) { return "", false })
		if err != nil {
			return
		}
		out, err := cfg.Marshal()
		if err != nil {
			t.Fatalf("valid config does not marshal: %v", err)
		}
		again, err := Parse(out, func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatalf("marshalled config does not parse: %v\n%s", err, out)
		}
		// Compared as rendered: YAML does not tell a nil list from an empty one.
		if twice, _ := again.Marshal(); string(twice) != string(out) {
			t.Fatalf("round trip changed the config:\n%s\n%s", out, twice)
		}
	})
}
