package relay

import (
	"bytes"
	"testing"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/mc"
)

// TestEndLineWritesWhatTheStartSaid: each start field is on the end line once it is known, and
// absent before.
func TestEndLineWritesWhatTheStartSaid(t *testing.T) {
	cases := []struct {
		name string
		line endLine
		want string
	}{
		{"nothing known", endLine{}, `{}`},
		{"legacy ping", endLine{answered: "legacy ping"}, `{"answered":"legacy ping"}`},
		{"fallback", func() endLine {
			var l endLine
			l.hello(mc.Handshake{Host: "play.example", NextState: mc.NextStatus})
			l.answered = "fallback"
			return l
		}(), `{"host":"play.example","next":"status","answered":"fallback"}`},
		{"relayed", func() endLine {
			var l endLine
			l.hello(mc.Handshake{Host: "play.example", NextState: mc.NextLogin})
			l.backend = "127.0.0.1:25565"
			return l
		}(), `{"host":"play.example","next":"login","backend":"127.0.0.1:25565"}`},
	}
	for _, c := range cases {
		var out bytes.Buffer
		log := zerolog.New(&out)
		e := log.Log()
		c.line.write(e)
		e.Send()
		if got := bytes.TrimSpace(out.Bytes()); string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
