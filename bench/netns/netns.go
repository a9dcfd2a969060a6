// Package netns makes the hosts of a benchmark that needs more than loopback: named network
// namespaces (as `ip netns add` makes them), each with its own loopback, addresses and routes.
// Code enters one with Do, on a thread of its own, to open sockets and devices there; those stay
// in the namespace after Do returns. Programs run in one through Command. Creating namespaces
// needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and iproute2's ip.
package netns

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// NS is a named network namespace this process created; Close deletes it.
type NS struct {
	Name string
}

// Create adds the namespace name and brings its loopback up.
func Create(name string) (*NS, error) {
	if err := ip("netns", "add", name); err != nil {
		return nil, err
	}
	n := &NS{Name: name}
	if err := n.IP("link", "set", "lo", "up"); err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

// Close deletes the namespace. Sockets and devices still open in it keep it alive until they
// close; a process still running in it keeps running.
func (n *NS) Close() error { return ip("netns", "delete", n.Name) }

// IP runs `ip -n NAME args...`, e.g. IP("addr", "add", "10.0.0.1/24", "dev", "tun0").
func (n *NS) IP(args ...string) error { return ip(append([]string{"-n", n.Name}, args...)...) }

// Command is `ip netns exec NAME name args...`: ip enters the namespace and executes name, so the
// process's PID is the program's own.
func (n *NS) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", n.Name, name}, args...)...)
}

// CommandError is an ip command that failed, with what it printed.
type CommandError struct {
	Args   []string
	Output string
	Err    error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("ip %s: %v: %s", strings.Join(e.Args, " "), e.Err, e.Output)
}

func (e *CommandError) Unwrap() error { return e.Err }

func ip(args ...string) error {
	var out bytes.Buffer
	cmd := exec.Command("ip", args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return &CommandError{Args: args, Output: strings.TrimSpace(out.String()), Err: err}
	}
	return nil
}
