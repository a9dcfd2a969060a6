package target

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain lets this test binary play moonbridge: run with FAKE_MOONBRIDGE=1 it behaves like
// `moonbridge serve --listen ADDR`, listening until SIGTERM.
func TestMain(m *testing.M) {
	if os.Getenv("FAKE_MOONBRIDGE") == "1" {
		fakeServe(os.Args[2:]) // os.Args[1] is "serve"
		return
	}
	os.Exit(m.Run())
}

func fakeServe(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	listen := fs.String("listen", "", "")
	fs.String("backend", "", "")
	fs.String("config", "", "")
	fs.String("log-format", "", "")
	fs.Parse(args)
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["backend"] && given["config"] {
		// moonbridge's --backend replaces the config's routes: a config with routes of its own
		// must come without it.
		fmt.Fprintln(os.Stderr, "--backend would replace the routes of --config")
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer ln.Close()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
}

func TestStartFindsThePortAndStops(t *testing.T) {
	t.Setenv("FAKE_MOONBRIDGE", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Start(context.Background(), ServeConfig{Binary: exe, Backend: "127.0.0.1:1", Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := m.Endpoint("tcp")
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", ep)
	if err != nil {
		t.Fatalf("not listening on %s: %v", ep, err)
	}
	c.Close()
	if m.PID() <= 0 {
		t.Errorf("pid %d", m.PID())
	}
	if err := m.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func TestStartReportsAnEarlyExit(t *testing.T) {
	t.Setenv("FAKE_MOONBRIDGE", "1")
	exe, _ := os.Executable()
	// A bad flag makes the fake exit at once, like a moonbridge that refuses its config.
	_, err := Start(context.Background(), ServeConfig{Binary: exe, Backend: "x", ExtraArgs: []string{"--nonsense"}, Log: io.Discard})
	if err == nil {
		t.Fatal("started although the process exited")
	}
}

// Without a backend, moonbridge is started without --backend, so that the routes of the config
// in ExtraArgs stay.
func TestStartWithoutBackendKeepsTheConfigRoutes(t *testing.T) {
	t.Setenv("FAKE_MOONBRIDGE", "1")
	exe, _ := os.Executable()
	m, err := Start(context.Background(), ServeConfig{Binary: exe, ExtraArgs: []string{"--config", "routes.yml"}, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func TestExternalEndpoints(t *testing.T) {
	cases := []struct {
		addr, transport, want string
		ok                    bool
	}{
		{"127.0.0.1:25580", "tcp", "127.0.0.1:25580", true},
		{"127.0.0.1:25581", "ws", "ws://127.0.0.1:25581/mc", true},
		{"wss://127.0.0.1:25582/mc", "wss", "wss://127.0.0.1:25582/mc", true},
		{"wss://127.0.0.1:25582/mc", "ws", "", false},
		{"localhost", "tcp", "", false},
	}
	for _, c := range cases {
		got, err := External{Address: c.addr}.Endpoint(c.transport)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%s over %s = %q, %v", c.addr, c.transport, got, err)
		}
	}
}
