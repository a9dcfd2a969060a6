package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/moonbridge/moonbridge/internal/freeport"
)

// Timeouts of a managed moonbridge: how long it may take to listen, and to exit after SIGTERM
// before it is killed.
const (
	readyTimeout = 10 * time.Second
	stopTimeout  = 5 * time.Second
	probeEvery   = 20 * time.Millisecond
)

// ServeConfig says how to start moonbridge.
type ServeConfig struct {
	Binary      string   // bin/moonbridge
	Backend     string   // host:port of the fake backend; "" when ExtraArgs' config has the routes
	TLSProvider string   // boringssl or go; "" leaves the proxy's default
	ExtraArgs   []string // more serve flags, e.g. from an A/B variant
	Log         io.Writer
}

// Managed is a process the benchmark started, ready once its listener accepted a connection.
type Managed struct {
	name    string // what the errors call it
	addr    string
	cmd     *exec.Cmd
	probe   Probe
	exited  chan struct{} // closed when the process has exited and waitErr is set
	waitErr error
}

// Probe connects to addr once, within timeout, and closes the connection: nil when addr
// accepts. DialProbe is this process's own dial; a process in a network namespace needs a
// probe from inside it.
type Probe func(addr string, timeout time.Duration) error

// DialProbe is a Probe by this process's own dial.
func DialProbe(addr string, timeout time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err == nil {
		c.Close()
	}
	return err
}

// Start picks a free loopback port, starts `moonbridge serve --listen 127.0.0.1:PORT` in front
// of the backend, and waits until the port accepts connections.
func Start(ctx context.Context, cfg ServeConfig) (*Managed, error) {
	addr, err := freeport.Loopback()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--listen", addr, "--log-format", "json"}
	if cfg.Backend != "" {
		args = append(args, "--backend", cfg.Backend)
	}
	if cfg.TLSProvider != "" {
		args = append(args, "--tls-provider", cfg.TLSProvider)
	}
	cmd := exec.Command(cfg.Binary, append(args, cfg.ExtraArgs...)...)
	cmd.Stdout, cmd.Stderr = cfg.Log, cfg.Log
	return Launch(ctx, cfg.Binary, cmd, addr, DialProbe)
}

// Launch starts cmd, called name in errors, and waits until probe finds addr (a listener of
// the process) accepting connections; it stops the process when that does not come within
// 10 s or the process exits.
func Launch(ctx context.Context, name string, cmd *exec.Cmd, addr string, probe Probe) (*Managed, error) {
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	m := &Managed{name: name, addr: addr, cmd: cmd, probe: probe, exited: make(chan struct{})}
	go func() {
		m.waitErr = cmd.Wait()
		close(m.exited)
	}()
	if err := m.waitReady(ctx); err != nil {
		_ = m.Stop() // the readiness error says more than how the process ended
		return nil, err
	}
	return m, nil
}

// waitReady polls the port until it accepts a connection or the process exits.
func (m *Managed) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	for {
		if m.probe(m.addr, probeEvery) == nil {
			return nil
		}
		select {
		case <-m.exited:
			return fmt.Errorf("%s exited before listening on %s: %v", m.name, m.addr, m.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("%s not listening on %s after %v", m.name, m.addr, readyTimeout)
		case <-time.After(probeEvery):
		}
	}
}

func (m *Managed) Endpoint(transport string) (string, error) { return endpointFor(transport, m.addr) }

func (m *Managed) PID() int { return m.cmd.Process.Pid }

// Stop sends SIGTERM, waits for a clean exit and kills the process if it does not come.
func (m *Managed) Stop() error {
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-m.exited:
		return exitError(m.waitErr)
	case <-time.After(stopTimeout):
		m.cmd.Process.Kill()
		<-m.exited
		return fmt.Errorf("%s did not exit within %v of SIGTERM; killed", m.name, stopTimeout)
	}
}

// exitError treats an exit on SIGTERM as clean.
func exitError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM {
			return nil
		}
	}
	return err
}
