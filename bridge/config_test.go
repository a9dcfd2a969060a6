package bridge

import (
	"errors"
	"testing"

	"github.com/moonbridge/moonbridge/ws"
)

func TestNewRefusesBadSettings(t *testing.T) {
	for _, tc := range []struct{ listen, url string }{
		{"", "wss://play.example.test/mc"},
		{"127.0.0.1:0", ""},
		{"127.0.0.1:0", "https://play.example.test/mc"},
		{"127.0.0.1:0", "wss:///mc"},
	} {
		var ce *ConfigError
		if _, err := New(Config{Listen: tc.listen, Remote: ws.DialConfig{URL: tc.url}}); !errors.As(err, &ce) {
			t.Errorf("New(listen %q, url %q) = %v, want a *ConfigError", tc.listen, tc.url, err)
		}
	}
}
