package bridge

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/ws"
)

// Bridge listens for game connections and runs one session per connection. Close stops
// accepting, closes every session with a reason and waits for everything it started.
type Bridge struct {
	cfg  Config
	log  zerolog.Logger
	dial func(context.Context, ws.DialConfig) (*ws.Conn, error) // ws.Dial; tests hold writes with it
	// nextWait bounds the wait for the packet behind the handshake, for early data:
	// nextPacketWait; tests set their own.
	nextWait time.Duration

	ctx    context.Context // cancelled by Close: aborts dials in progress
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	ln       net.Listener
	sessions map[*session]struct{}
}

// New checks cfg and returns a Bridge that is not yet listening.
func New(cfg Config) (*Bridge, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Bridge{
		cfg: cfg, log: cfg.Logger, dial: ws.Dial, nextWait: nextPacketWait,
		ctx: ctx, cancel: cancel, sessions: make(map[*session]struct{}),
	}, nil
}

// Start binds the listen address and starts accepting game connections.
func (b *Bridge) Start() error {
	ln, err := net.Listen("tcp", b.cfg.Listen)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.ln = ln
	b.mu.Unlock()
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.acceptLoop(ln) }()
	return nil
}

// Addr is the bound address (useful with port 0); nil before Start.
func (b *Bridge) Addr() net.Addr {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ln == nil {
		return nil
	}
	return b.ln.Addr()
}

// Close stops accepting, ends every session with ErrShutdown and waits for them.
func (b *Bridge) Close() error {
	b.cancel()
	b.mu.Lock()
	if b.ln != nil {
		b.ln.Close()
	}
	for s := range b.sessions {
		s.fail(ErrShutdown)
	}
	b.mu.Unlock()
	b.wg.Wait()
	return nil
}

func (b *Bridge) acceptLoop(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				b.log.Error().Err(err).Msg("accepting game connections failed; the bridge stops listening")
			}
			return
		}
		s := newSession(b, conn)
		if !b.track(s) {
			conn.Close()
			return
		}
		b.wg.Add(1)
		go func() { defer b.wg.Done(); defer b.untrack(s); s.run() }()
	}
}

// track registers s unless Close has begun.
func (b *Bridge) track(s *session) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctx.Err() != nil {
		return false
	}
	b.sessions[s] = struct{}{}
	return true
}

func (b *Bridge) untrack(s *session) {
	b.mu.Lock()
	delete(b.sessions, s)
	b.mu.Unlock()
}
