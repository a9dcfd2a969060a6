package suite

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/phase"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// TestRunPairsPhases: with the backend standing in for the relay (this process for its PID),
// every repeat gives a direct and a proxy phase, and the proxy phase has its ratio and CPU.
func TestRunPairsPhases(t *testing.T) {
	echo, _ := traffic.NewEcho(64, 2)
	be, err := backend.Listen("127.0.0.1:0", echo, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := client.TCPDialer{Addr: be.Addr()}
	cfg := Config{Phase: phase.Config{Profile: echo, Connections: 2, Warmup: 5, Messages: 40, Window: 2}, Repeats: 2, Direct: true}
	phases, err := Run(ctx, cfg, d, d, os.Getpid(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	paths := ""
	for _, p := range phases {
		paths += p.Path[:1]
	}
	if paths != "dpdp" {
		t.Fatalf("phase paths %q, want direct, proxy per repeat", paths)
	}
	s := Summarize(phases)
	for _, name := range []string{phase.ProxyPerDirect, phase.CPUNsPerFrame, phase.RSSKiB} {
		if s[PathProxy][name].N != 2 {
			t.Errorf("proxy %s over %d phases, want 2", name, s[PathProxy][name].N)
		}
		if s[PathDirect][name].N != 0 {
			t.Errorf("direct phases report %s", name)
		}
	}
}
