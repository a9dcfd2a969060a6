package cluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// stopBound is how long a process has to end after SIGTERM before it is killed.
const stopBound = 15 * time.Second

// process is a child (etcd, kube-apiserver) whose output goes to a log file.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when it has exited
	err  error         // its Wait's, once done is closed
}

// startProcess runs bin with args, its output appended to logPath. The child is killed if this
// process dies first (Pdeathsig), so a crashed test leaves no server behind.
func startProcess(name, bin, logPath string, args ...string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// exited says whether the process has ended, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// ErrKilled is a process that did not end within stopBound of SIGTERM.
var ErrKilled = errors.New("did not stop after SIGTERM: killed")

// stop sends SIGTERM and waits for the end, then kills it after stopBound.
func (p *process) stop() error {
	if done, _ := p.exited(); done {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(stopBound):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s: %w; its log:\n%s", p.name, ErrKilled, tail(p.log))
	}
}
