// Package backend is the fake Minecraft server every relay under test forwards to: it accepts
// offline logins and then plays a traffic profile, answering everything one read delivered with
// one write, as the Java MoonBridge's benchmark backend flushed once per read batch
// (docs/design.md, "Where this comes from"). A paced profile (traffic.Paced) also has the
// backend write on its own schedule, as a game server's ticks do. A 1.21.1 (protocol 767) login
// is served by bench/modern instead, whatever the profile: login, configuration, then
// test:echo plugin messages echoed, for the transfer benchmark's players.
package backend

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/bench/pace"
	"github.com/moonbridge/moonbridge/bench/traffic"
	"github.com/moonbridge/moonbridge/mc"
)

// Profile is what the backend plays: a round-trip profile (traffic.Profile) or paced traffic.
type Profile interface {
	LoginBurst() traffic.Burst
	NewAnswerer() traffic.Answerer
}

// pushed is a profile that also writes down on a schedule per player; nil means it does not
// for this one.
type pushed interface {
	Down(name string) traffic.Schedule
}

// Options are optional settings of a backend.
type Options struct {
	// Late gets how late each scheduled write of a paced profile began.
	Late func(time.Duration)
	// Modern is how protocol 767 logins are served; its zero value compresses every packet.
	Modern modern.ServerConfig
}

// readBuffer is the first read buffer of a connection; it grows for larger frames. It is small
// so that thousands of idle sessions (--idle) stay cheap for the benchmark process.
const readBuffer = 16 << 10

// Server is a running fake backend. Close stops it and waits for every connection.
type Server struct {
	ln       net.Listener
	profile  Profile
	opts     Options
	log      zerolog.Logger
	failures atomic.Int64

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Listen starts a backend on addr (host:port, port 0 for any) that plays profile.
func Listen(addr string, profile Profile, log zerolog.Logger) (*Server, error) {
	return ListenWith(addr, profile, log, Options{})
}

// ListenWith is Listen with options.
func ListenWith(addr string, profile Profile, log zerolog.Logger, opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if opts.Late == nil {
		opts.Late = func(time.Duration) {}
	}
	s := &Server{ln: ln, profile: profile, opts: opts, log: log, conns: make(map[net.Conn]struct{})}
	s.wg.Add(1)
	go s.acceptLoop()
	return s, nil
}

// Addr is the address the backend listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Failures counts connections the backend closed for bad traffic; a run with any fails.
func (s *Server) Failures() int64 { return s.failures.Load() }

// Close stops accepting, closes every connection and waits for their goroutines.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Server) acceptLoop() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		if !s.track(c) {
			c.Close()
			return
		}
		s.wg.Add(1)
		go s.serve(c)
	}
}

func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	err := s.play(c)
	s.mu.Lock()
	delete(s.conns, c)
	closing := s.closed
	s.mu.Unlock()
	c.Close()
	if err != nil && !closing && !isHangup(err) {
		s.failures.Add(1)
		s.log.Error().Err(err).Str("client", c.RemoteAddr().String()).Msg("backend closed a session for bad traffic")
	}
}

// play runs one session: login, login burst, then the profile's answers until the client
// leaves; or a modern session.
func (s *Server) play(c net.Conn) error {
	r := mc.NewFrameReader(c, readBuffer)
	handshake, body, err := r.ReadFrame()
	if err != nil {
		return &login.Error{Step: "handshake", Err: err}
	}
	if hs, err := modern.ParseHandshake(body); err == nil && hs.Protocol == modern.Protocol {
		return modern.Serve(modern.NewConn(c, r), hs, s.opts.Modern)
	}
	name, err := login.ReadRequestAfter(handshake, r)
	if err != nil {
		return err
	}
	if _, err := c.Write(login.AppendAnswer(nil, name)); err != nil {
		return err
	}
	if err := login.ReadPositionConfirm(r); err != nil {
		return err
	}
	if burst := s.profile.LoginBurst(); len(burst.Bytes) > 0 {
		if _, err := c.Write(burst.Bytes); err != nil {
			return err
		}
	}
	if p, ok := s.profile.(pushed); ok {
		if down := p.Down(name); down != nil {
			defer s.push(c, down)()
		}
	}
	return answerLoop(c, r, s.profile.NewAnswerer())
}

// push writes down's events to c from another goroutine until the returned stop is called.
// Both it and answerLoop write whole frames in single calls, which net.Conn keeps apart.
func (s *Server) push(c net.Conn, down traffic.Schedule) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A failed write is the session ending; the read side sees it and says why.
		_ = pace.Run(ctx, time.Now(), down, func(ev traffic.Event) error {
			_, err := c.Write(ev.Bytes)
			return err
		}, s.opts.Late)
	}()
	return func() {
		cancel()
		c.Close() // unblocks a write to a client that stopped reading
		<-done
	}
}

// answerLoop answers every frame of each read, then writes all answers at once.
func answerLoop(c net.Conn, r *mc.FrameReader, a traffic.Answerer) error {
	var out []byte
	for {
		for {
			frame, body, ok, err := r.Next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if out, err = a.Answer(out, frame, body); err != nil {
				return err
			}
		}
		if len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return err
			}
			out = out[:0]
		}
		if err := r.Fill(); err != nil {
			return err
		}
	}
}

// isHangup is a client leaving between frames (a reset when it closed with our answers unread,
// or a broken pipe when our next answer is written after that reset), which is how every
// session ends.
func isHangup(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
