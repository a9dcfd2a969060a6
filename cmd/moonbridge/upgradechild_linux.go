package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/buildinfo"
	"github.com/moonbridge/moonbridge/internal/handover"
)

// childGreetTimeout bounds this side's greeting; the parent's upgrade.timeout bounds the rest.
const childGreetTimeout = 10 * time.Second

// upgradeChild is this process's side of an upgrade, when a running moonbridge started it.
type upgradeChild struct {
	conn *handover.Conn // nil once ready has told the parent
	// sessions is the channel after ready, on which the parent sends its sessions, when it
	// speaks this format (takeSessions); nil otherwise and once they are being taken.
	sessions *handover.Conn
	parent   handover.Peer
	ppid     int
	sockets  int // how many were handed over
}

// takeOver reads the hand-over from the environment: nil when this process was not started by
// an upgrade. It greets the parent and takes the sockets it passed into sock. The variables are
// removed, so that nothing this process starts reads them.
func takeOver(sock *sockets) (*upgradeChild, error) {
	fdText, ok := os.LookupEnv(handoverFDEnv)
	if !ok {
		return nil, nil
	}
	names := os.Getenv(listenFDsEnv)
	os.Unsetenv(handoverFDEnv)
	os.Unsetenv(listenFDsEnv)
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s=%q: not a descriptor", handoverFDEnv, fdText)
	}
	conn, err := handover.Open(uintptr(fd))
	if err != nil {
		return nil, err
	}
	c := &upgradeChild{conn: conn, ppid: os.Getppid()}
	if c.parent, err = conn.Greet(buildinfo.Collect().Version, time.Now().Add(childGreetTimeout)); err != nil {
		conn.Close()
		return nil, err
	}
	if names != "" {
		if c.sockets, err = sock.inherit(names); err != nil {
			return nil, c.fail(err)
		}
	}
	return c, nil
}

// logStart says whom this process takes over from, once there is a logger.
func (c *upgradeChild) logStart(log zerolog.Logger) {
	if c == nil {
		return
	}
	log.Info().Int("old_pid", c.ppid).Str("old_version", c.parent.Build).Uint16("format", c.parent.Version).Int("sockets", c.sockets).
		Msg("upgrade: taking over the listeners of the running process")
}

// ready tells the parent that this process serves; the parent stops accepting then, and sends
// its sessions when it speaks this format (takeSessions reads them).
func (c *upgradeChild) ready() error {
	if c == nil {
		return nil
	}
	conn := c.conn
	c.conn = nil
	err := conn.SendReady(time.Now().Add(childGreetTimeout))
	if err != nil || !c.parent.SameFormat() {
		conn.Close()
		return err
	}
	c.sessions = conn
	return nil
}

// fail tells the parent why this process's start-up failed (err; nil: it did not), and returns
// err saying so for this process's own last line; the parent keeps serving. After ready there
// is nobody to tell: the parent has handed over.
func (c *upgradeChild) fail(err error) error {
	if err == nil || c == nil || c.conn == nil {
		return err
	}
	c.conn.SendFailed(err.Error(), time.Now().Add(childGreetTimeout))
	c.conn.Close()
	c.conn = nil
	return fmt.Errorf("upgrade: this new process did not start, the running one (pid %d) keeps serving: %w", c.ppid, err)
}
