package flood

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/moonbridge/moonbridge/mc/auth/authfake"
)

// Config is one flood: a class at a rate against one listener.
type Config struct {
	Class     string
	Transport string  // TransportTCP, TransportWS or TransportWSS
	Target    string  // the listener, host:port
	Rate      float64 // new connections a second; 0: as fast as MaxOpen allows
	Duration  time.Duration
	MaxOpen   int           // connections open at once, at most
	Hold      time.Duration // a connection is closed by the generator after this
	// SlowInterval is the time between two bytes of slowtls and slowws.
	SlowInterval time.Duration
	Sources      Sources
	Host         string // handshake host and SNI of every class but online
	OnlineHost   string // the online route's host
	WSPath       string // the WebSocket path of the open routes
	TokenPath    string // a path whose route requires tokens
	Sessions     *authfake.SessionServer
	Seed         uint64
	// Engine runs the connections: EngineGo (a goroutine each, every class) or EngineEpoll
	// (EpollThreads threads of non-blocking sockets, canned bytes, the cheap classes).
	Engine       string
	EpollThreads int
	TLSClient    string // wss: TLSDefault, TLSX25519 or TLSResume

	clientHello []byte
	tlsConfig   *tls.Config
}

// Result is what the generator did and saw.
type Result struct {
	Started       uint64  `json:"started"`
	AchievedRate  float64 `json:"achieved_rate"` // starts a second over the flood's window
	WindowS       float64 `json:"window_s"`
	Connected     uint64  `json:"connected"`
	ConnectFailed uint64  `json:"connect_failed"` // connect, or for wss the TLS or upgrade
	Answered      uint64  `json:"answered"`       // the answer the class waits for came
	Closed        uint64  `json:"closed_by_proxy"`
	Held          uint64  `json:"held_to_end"`
	Other         uint64  `json:"other"`
	Sources       uint64  `json:"source_addresses"`
	Resumed       uint64  `json:"tls_resumed,omitempty"` // wss handshakes that resumed a session
	FirstError    string  `json:"first_error,omitempty"`
	// FloodCores is the CPU of the flood's own threads over the window, FloodCPUS theirs until
	// the last connection ended (the epoll engine's; 0 for the go engine, whose goroutines share
	// threads with the players).
	FloodCores float64 `json:"flood_cores,omitempty"`
	FloodCPUS  float64 `json:"flood_cpu_s,omitempty"`
}

// Check refuses a flood that cannot run.
func (c *Config) Check() error {
	if err := CheckClass(c.Class); err != nil {
		return err
	}
	switch {
	case !slices.Contains(Transports, c.Transport):
		return fmt.Errorf("flood: transport %q: want one of %v", c.Transport, Transports)
	case c.Rate < 0 || c.Duration <= 0 || c.MaxOpen < 1 || c.Hold <= 0:
		return errors.New("flood: rate must be at least 0, duration, max open and hold positive")
	case c.Class == ClassOnline && c.Sessions == nil:
		return errors.New("flood: online needs the fake session server")
	}
	if err := CheckTLSClient(c.TLSClient); err != nil {
		return err
	}
	if err := c.CheckEngine(); err != nil {
		return err
	}
	return c.Sources.Check()
}

// Run floods until the duration is over and every connection has ended (at most Hold later).
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.Check(); err != nil {
		return Result{}, err
	}
	if err := cfg.prepare(); err != nil {
		return Result{}, err
	}
	if cfg.Engine == EngineEpoll {
		return runEpoll(ctx, &cfg)
	}
	var t tally
	p := Pacer{Rate: cfg.Rate, Duration: cfg.Duration, MaxOpen: cfg.MaxOpen}.Run(ctx, func(ctx context.Context, i uint64) {
		connect(ctx, &cfg, i, &t)
	})
	res := t.result()
	res.Started, res.AchievedRate, res.WindowS = p.Started, p.Rate(), p.Window.Seconds()
	res.Sources = cfg.Sources.Distinct(p.Started)
	return res, ctx.Err()
}

// prepare makes what every connection of the flood shares: the ClientHello the TLS classes
// send, the TLS client's config.
func (c *Config) prepare() error {
	if c.Class == ClassSlowTLS || c.Class == ClassTLSHello {
		hello, err := ClientHello(c.Host)
		if err != nil {
			return err
		}
		c.clientHello = hello
	}
	var err error
	c.tlsConfig, err = tlsClientConfig(c.TLSClient, c.Host)
	return err
}

// connect opens connection i from its source address, runs the class on it and counts how
// it ended in t.
func connect(ctx context.Context, cfg *Config, i uint64, t *tally) {
	dctx, cancel := context.WithTimeout(ctx, cfg.Hold)
	defer cancel()
	c, err := dialFrom(dctx, cfg.Sources.Addr(i), cfg.Target)
	if err != nil {
		t.add(outConnectFailed, err)
		return
	}
	defer c.Close()
	a := attack{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, i)), conn: c}
	t.add(a.run(ctx), nil)
	if a.resumed {
		t.resumed.Add(1)
	}
}

// tally counts outcomes from every connection's goroutine.
type tally struct {
	n        [outOther + 1]atomic.Uint64
	resumed  atomic.Uint64 // wss handshakes that resumed a session
	mu       sync.Mutex
	firstErr string
}

func (t *tally) add(o outcome, err error) {
	t.n[o].Add(1)
	if err != nil {
		t.mu.Lock()
		if t.firstErr == "" {
			t.firstErr = err.Error()
		}
		t.mu.Unlock()
	}
}

func (t *tally) result() Result {
	r := Result{
		ConnectFailed: t.n[outConnectFailed].Load(), Answered: t.n[outAnswered].Load(),
		Closed: t.n[outClosedByProxy].Load(), Held: t.n[outHeld].Load(), Other: t.n[outOther].Load(),
		Resumed: t.resumed.Load(), FirstError: t.firstErr,
	}
	r.Connected = r.Answered + r.Closed + r.Held + r.Other
	return r
}

func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
