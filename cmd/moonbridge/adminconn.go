package main

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// What bounds the admin endpoint's connections, so that its port can never take the
// descriptors the game port needs: a cap on open connections (limitListener), the server's
// read, header and idle timeouts, a header size bound, and a write deadline per request
// (writeDeadline).

// maxAdminHeaderBytes bounds a request's headers: probes, scrapes and curl send under 1 KiB.
const maxAdminHeaderBytes = 16 << 10

// newAdminServer is the admin endpoint's server of handler, bounded by cfg.
func newAdminServer(cfg config.Admin, handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           writeDeadline(cfg.WriteTimeout, handler),
		ReadHeaderTimeout: cfg.ReadTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    maxAdminHeaderBytes,
	}
}

// limitListener accepts at most cap(slots) connections at once: Accept waits while that many
// are open, so the next ones wait in the kernel's accept queue and hold none of the process's
// descriptors.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	conn, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &slotConn{Conn: conn, release: sync.OnceFunc(func() { <-l.slots })}, nil
}

// Close also ends an Accept waiting for a slot.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// slotConn gives its slot back when closed.
type slotConn struct {
	net.Conn
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// maxStream bounds how long a profile or trace may hold its connection.
const maxStream = time.Hour

// writeDeadline gives each request d to write its answer. A CPU profile or an execution trace
// streams for the seconds it asks for (as net/http/pprof reads them), so it gets them on top, on
// its read deadline too: the server's read deadline would otherwise end the request's context
// and with it the profile. (http.Server.WriteTimeout would make pprof refuse any profile longer
// than it.)
func writeDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		stream := streamTime(r)
		until := time.Now().Add(d + stream)
		rc.SetWriteDeadline(until)
		if stream > 0 {
			rc.SetReadDeadline(until)
		}
		next.ServeHTTP(w, r)
	})
}

// streamTime is how long r streams its answer: the seconds of a profile (30 when not given) or
// trace (1), read as net/http/pprof reads them, at most maxStream; 0 for any other request.
func streamTime(r *http.Request) time.Duration {
	given := r.URL.Query().Get("seconds")
	seconds := 0.0
	switch r.URL.Path {
	case "/debug/pprof/profile":
		seconds = 30
		if s, err := strconv.ParseInt(given, 10, 64); err == nil && s > 0 {
			seconds = float64(s)
		}
	case "/debug/pprof/trace":
		seconds = 1
		if s, err := strconv.ParseFloat(given, 64); err == nil && s > 0 {
			seconds = s
		}
	}
	return time.Duration(min(seconds, maxStream.Seconds()) * float64(time.Second))
}
