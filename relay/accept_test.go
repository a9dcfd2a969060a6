package relay

import (
	"bytes"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// scriptedListener returns the errors of its script in turn, then one connection, then
// net.ErrClosed.
type scriptedListener struct {
	mu     sync.Mutex
	script []error
	conn   net.Conn
}

func (l *scriptedListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.script) > 0 {
		err := l.script[0]
		l.script = l.script[1:]
		return nil, err
	}
	if c := l.conn; c != nil {
		l.conn = nil
		return c, nil
	}
	return nil, net.ErrClosed
}

func (l *scriptedListener) Close() error   { return nil }
func (l *scriptedListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

func acceptFailure(errno syscall.Errno) error {
	return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}
}

// Issue 13, defect 1: one failed accept (out of descriptors) stopped the listener for good.
// Temporary failures are waited out and the next connection is served.
func TestAcceptRetriesTemporaryFailures(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		t.Run(errno.Error(), func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			l := &scriptedListener{script: []error{acceptFailure(errno), acceptFailure(errno)}, conn: server}
			var handled []net.Conn
			err := acceptEach(l, zerolog.New(zerolog.NewTestWriter(t)), func(c net.Conn) { handled = append(handled, c) })
			if err != nil {
				t.Fatalf("acceptEach ended with %v after a temporary %v, want it to keep accepting", err, errno)
			}
			if len(handled) != 1 || handled[0] != server {
				t.Fatalf("handled %d connections after the failures, want the one that came", len(handled))
			}
		})
	}
}

// A failure that is not temporary ends the loop with that error.
func TestAcceptStopsOnPermanentFailure(t *testing.T) {
	l := &scriptedListener{script: []error{acceptFailure(syscall.EBADF)}}
	err := acceptEach(l, zerolog.Nop(), func(net.Conn) { t.Error("handled a connection") })
	if !errors.Is(err, syscall.EBADF) {
		t.Fatalf("acceptEach = %v, want EBADF", err)
	}
}

// A listener that stops for good turns the server not live and not ready, and is reported on
// Failed, so that the process is restarted instead of living on without accepting.
func TestListenerFailureTurnsHealthRed(t *testing.T) {
	srv, _ := startProxy(t, func(c *Config) { c.Routes = routeTo("127.0.0.1:1") }, Minecraft)
	if h := srv.Health(); !h.Live || !h.Ready {
		t.Fatalf("health of a running server: %+v, want live and ready", h)
	}
	ln := &listener{srv: srv, tcp: &scriptedListener{script: []error{acceptFailure(syscall.EBADF)}}, log: zerolog.Nop(), accepted: make(chan struct{})}
	srv.serveListener(ln)
	select {
	case err := <-srv.Failed():
		var le *ListenerError
		if !errors.As(err, &le) || !errors.Is(err, syscall.EBADF) {
			t.Errorf("Failed delivered %v, want a *ListenerError wrapping EBADF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stopped listener was not reported on Failed")
	}
	if h := srv.Health(); h.Live || h.Ready || h.Reason == "" {
		t.Errorf("health after a listener stopped: %+v, want neither live nor ready, with a reason", h)
	}
}

// alternatingListener fails every other accept (as at the descriptor limit under a flood) for
// n accepts, then is closed.
type alternatingListener struct{ i, n int }

func (l *alternatingListener) Accept() (net.Conn, error) {
	l.i++
	switch {
	case l.i > l.n:
		return nil, net.ErrClosed
	case l.i%2 == 1:
		return nil, acceptFailure(syscall.EMFILE)
	}
	client, server := net.Pipe()
	client.Close()
	return server, nil
}

func (l *alternatingListener) Close() error   { return nil }
func (l *alternatingListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// Failures that alternate with successes are logged at most once a second, not once each.
func TestAcceptFailuresBetweenSuccessesLogOncePerSecond(t *testing.T) {
	var log bytes.Buffer
	start := time.Now()
	l := &alternatingListener{n: 100} // 50 failures, 5 ms wait each
	if err := acceptEach(l, zerolog.New(&log), func(c net.Conn) { c.Close() }); err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(log.String(), "accept failed; retrying")
	if most := 1 + int(time.Since(start)/time.Second); lines < 1 || lines > most {
		t.Errorf("%d failure lines for 50 failures in %v, want 1 to %d:\n%s", lines, time.Since(start), most, log.String())
	}
}
