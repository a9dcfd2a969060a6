//go:build interop

// The interop test runs the package against a real podman (bench/interop/docker.sh, `make
// interop-docker`): its own `podman system service` on a socket in a temporary directory,
// with storage, state and networks there too, and containers whose program is this test
// binary (built with CGO_ENABLED=0, so it runs in an image of that one file), serving an echo
// backend on a loopback port of the host network. Nothing is dialled but loopback.
package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/internal/testutil/mctest"
	"github.com/moonbridge/moonbridge/internal/testutil/relaytest"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// serveEnv makes this binary the containers' program: an echo backend on its address.
const serveEnv = "MOONBRIDGE_DOCKER_INTEROP_SERVE"

const image = "localhost/moonbridge-interop:test"

func TestMain(m *testing.M) {
	if addr := os.Getenv(serveEnv); addr != "" {
		os.Exit(serveEcho(addr))
	}
	os.Exit(m.Run())
}

// serveEcho is the containers' program: an echo backend on addr.
func serveEcho(addr string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(os.Stderr, mctest.ServeEcho(ln))
	return 1
}

// podman is one podman of the test's own: its flags, and its API service while it runs.
type podman struct {
	t       *testing.T
	dir     string
	flags   []string
	socket  string
	service *exec.Cmd
}

func startPodman(t *testing.T) *podman {
	t.Helper()
	dir, err := os.MkdirTemp("", "mbpodman")
	if err != nil {
		t.Fatal(err)
	}
	p := &podman{t: t, dir: dir, socket: filepath.Join(dir, "podman.sock"), flags: []string{
		"--root", filepath.Join(dir, "root"), "--runroot", filepath.Join(dir, "run"), "--tmpdir", filepath.Join(dir, "tmp"),
		"--network-config-dir", filepath.Join(dir, "networks"), "--runtime", "runc", "--events-backend", "file",
	}}
	t.Cleanup(func() {
		p.stopService()
		exec.Command("podman", append(p.flags, "rm", "--all", "--force", "--time", "0")...).Run()
		exec.Command("podman", append(p.flags, "rmi", "--all", "--force")...).Run()
		exec.Command("podman", append(p.flags, "system", "reset", "--force")...).Run()
		os.RemoveAll(dir)
	})
	p.importImage()
	p.startService()
	return p
}

// run runs podman with the test's flags and returns its output, trimmed.
func (p *podman) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("podman", append(p.flags, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// container runs (or, with "create", creates) a container of the test's image serving on
// addr, and returns its ID. This sandbox lacks CAP_SYS_RESOURCE: runc cannot raise the
// container's limits above its own, so they are lowered.
func (p *podman) container(verb, name, addr string, args ...string) string {
	p.t.Helper()
	cmd := []string{verb, "--name", name, "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024", "-e", serveEnv + "=" + addr}
	if verb == "run" {
		cmd = append(cmd, "-d")
	}
	return p.run(append(append(cmd, args...), image)...)
}

func (p *podman) state(name string) string {
	return p.run("inspect", "--format", "{{.State.Status}}", name)
}

// importImage makes an image whose only file is this test binary.
func (p *podman) importImage() {
	p.t.Helper()
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		p.t.Fatal(err)
	}
	var archive bytes.Buffer
	w := tar.NewWriter(&archive)
	w.WriteHeader(&tar.Header{Name: "server", Mode: 0o755, Size: int64(len(self)), Typeflag: tar.TypeReg})
	w.Write(self)
	w.Close()
	cmd := exec.Command("podman", append(p.flags, "import", "--change", `CMD ["/server"]`, "-", image)...)
	cmd.Stdin = &archive
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("podman import: %v\n%s", err, out)
	}
}

func (p *podman) startService() {
	p.t.Helper()
	os.Remove(p.socket)
	p.service = exec.Command("podman", append(p.flags, "system", "service", "--time", "0", "unix://"+p.socket)...)
	p.service.Stderr = os.Stderr
	if err := p.service.Start(); err != nil {
		p.t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", p.socket)
	}}}
	defer client.CloseIdleConnections()
	testutil.WaitFor(p.t, "podman's API", func() bool {
		resp, err := client.Get("http://podman/_ping")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	})
}

func (p *podman) stopService() {
	if p.service != nil {
		p.service.Process.Kill()
		p.service.Wait()
		p.service = nil
	}
}

func (p *podman) endpoint() Endpoint { return Endpoint{Network: "unix", Address: p.socket} }

// echoes says whether a login to addr is answered with its Login Start, by the container's
// echo backend (directly or through a proxy).
func echoes(t *testing.T, addr, host string) error {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(90 * time.Second))
	login := mc.AppendFrame(nil, 0x00, []byte("\x05Steve"))
	if _, err := conn.Write(append(mc.Handshake{Protocol: 767, Host: host, Port: 25565, NextState: mc.NextLogin}.AppendFrame(nil, host), login...)); err != nil {
		return err
	}
	got := make([]byte, len(login))
	if _, err := io.ReadFull(conn, got); err != nil {
		return err
	}
	if !bytes.Equal(got, login) {
		return fmt.Errorf("got %q back, want the Login Start %q", got, login)
	}
	return nil
}

// Real containers appear and disappear as routes: run, stop, recreated with another label,
// created with wake on a user network; a restart of the service (the events stream drops)
// is caught up with.
func TestPodmanContainersAreRoutes(t *testing.T) {
	p := startPodman(t)
	next, log := watch(t, p.endpoint(), time.Minute)
	wantRoutes(t, next())

	lobbyAddr := testutil.FreePort(t)
	p.container("run", "mb-lobby", lobbyAddr, "--network", "host", "--label", "moonbridge.host=lobby.example.net", "--label", "moonbridge.backend="+lobbyAddr)
	wantRoutes(t, next(), route("mb-lobby", lobbyAddr, "lobby.example.net"))
	testutil.WaitFor(t, "the container's server", func() bool { return echoes(t, lobbyAddr, "lobby.example.net") == nil })

	p.run("stop", "--time", "1", "mb-lobby")
	wantRoutes(t, next())

	p.run("rm", "mb-lobby")
	p.container("run", "mb-lobby", lobbyAddr, "--network", "host", "--label", "moonbridge.host=hub.example.net", "--label", "moonbridge.backend="+lobbyAddr)
	hub := route("mb-lobby", lobbyAddr, "hub.example.net")
	wantRoutes(t, next(), hub)

	p.run("network", "create", "mbgames")
	sleepyID := p.container("create", "mb-sleepy", "127.0.0.1:1", "--network", "mbgames",
		"--label", "moonbridge.host=sleepy.example.net", "--label", "moonbridge.wake=true", "--label", "moonbridge.stop_after_idle=5m")
	sleepy := route("mb-sleepy", "mb-sleepy:25565", "sleepy.example.net")
	sleepy.Wake.Container, sleepy.Wake.StopAfterIdle = sleepyID, 5*time.Minute
	wantRoutes(t, next(), hub, sleepy)

	p.stopService()
	p.run("rm", "--force", "--time", "0", "mb-lobby")
	p.startService()
	wantRoutes(t, next(), sleepy)
	if !strings.Contains(log.String(), "lost the engine") {
		t.Errorf("the service's restart was not logged:\n%s", log)
	}
}

// A login for a route whose wake is a stopped container starts it through podman's API, is
// held until the container's server answers and relayed to it; once idle, the container is
// stopped through the API.
func TestPodmanWakesAContainer(t *testing.T) {
	p := startPodman(t)
	addr := testutil.FreePort(t)
	id := p.container("create", "mb-wake", addr, "--network", "host")
	proxy := relaytest.Start(t, relay.Config{
		Listeners: []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.Minecraft}}},
		Routes: []relay.Route{{Name: "wake", Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: addr}}, Wake: &pool.Wake{
			Runtime: Container{Endpoint: p.endpoint(), ID: id}, ReadyTimeout: time.Minute, StopAfterIdle: time.Second, Hold: true}}},
		Fallback: relay.DefaultFallback(), DataPathConfig: relay.DefaultDataPath(), Logger: zerolog.New(zerolog.NewTestWriter(t)),
	})
	if state := p.state("mb-wake"); state != "created" {
		t.Fatalf("the container is %s before the login, want created", state)
	}
	if err := echoes(t, proxy, "wake.example.net"); err != nil {
		t.Fatalf("the login through the proxy: %v", err)
	}
	if state := p.state("mb-wake"); state != "running" {
		t.Errorf("the container is %s after the login, want running", state)
	}
	testutil.WaitFor(t, "the idle container to be stopped", func() bool { return p.state("mb-wake") == "exited" })
}
