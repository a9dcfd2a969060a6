package relay

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/internal/enum"
	"github.com/moonbridge/moonbridge/internal/tracing"
	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/relay/bans"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/ws"
)

// Config is everything a Server needs; cmd/moonbridge builds it from the config file and flags.
type Config struct {
	Listeners []Listener
	Routes    []Route
	// TLS serves wss; nil means listeners cannot offer wss.
	TLS *gossl.Server
	// TLSReason says why this TLS provider was chosen (gossl.Select's reason), for the startup
	// line of wss listeners.
	TLSReason string
	// WebSocket configures the upgrade (path, origins, header limits) and each connection.
	WebSocket ws.ServerConfig
	Limits    Limits
	// Defence is what the proxy does against floods: the block list (blocklist.go) and the
	// attack mode (attack.go).
	Defence Defence
	// Memory sets the buffer pools' profile and the memory limit logins are refused near.
	Memory Memory
	// TrustedProxies may send PROXY headers and forwarded-for headers (a CDN, a load balancer).
	TrustedProxies clientaddr.Nets
	// ClientIPHeaders are the headers that say who the player is, from TrustedProxies only, in
	// order (see clientaddr.FromHeaders); nil or empty means none: only PROXY headers and the socket
	// say who the player is.
	ClientIPHeaders []string
	// CountryHeader is the header a trusted proxy says the player's country in (Cloudflare's
	// CF-IPCountry), believed as ClientIPHeaders are (countryFromHeaders); "" reads none.
	CountryHeader string
	// Tokens verifies the access tokens of WebSocket clients for routes whose Access.Tokens is
	// not off; it must be set when one is. TokenInQuery lets a token come in the URL's query
	// too (accesstoken.go).
	Tokens       *access.Verifier
	TokenInQuery bool
	// ForwardSecret, when its Value is set, is the header without which ClientIPHeaders are
	// not believed (clientaddr.ForwardSecret).
	ForwardSecret clientaddr.ForwardSecret
	// LoginMeter bounds the hasJoined requests of every auth online route together (one meter
	// for the Server's life: a Reload changes its settings, not what it holds); zero: unmetered.
	LoginMeter auth.MeterSettings
	// LoginWebhook gets join and leave events (loginevents.go); its URL may be "".
	LoginWebhook LoginWebhook
	// LandingPage is what ws/wss listeners answer a browser (landing.go); zero: off.
	LandingPage LandingPage
	// Fallback answers status pings and logins when no backend is reachable.
	Fallback mc.Answer
	// RestartingMOTD replaces the fallback's MOTD while the server drains (Drain): a status
	// ping then gets it at once instead of going to a backend. Empty: the fallback's MOTD.
	RestartingMOTD string
	// Transfer moves the players a drain can move to a live instance (transfer.go); zero: none.
	Transfer Transfer
	// Bans refuses players by name, UUID or address before any backend is dialled (banned.go);
	// nil: a list of the server's own, empty. Read at New: a Reload keeps the list, whose
	// contents its owner changes (cmd/moonbridge: the bans file and the admin API).
	Bans *bans.List
	// Replicas is the state shared with the other replicas of one network (replicas.go), for
	// the Server's life (a Reload does not change it); nil: none.
	Replicas Replicas
	// DataPathConfig says what relays established sessions; it is read at Start, and a Reload
	// does not change it (datapath.go).
	DataPathConfig
	// Tracer traces joins (tracing.go); nil: off. Read at New; a Reload does not change it.
	Tracer *tracing.Tracer
	// Listen binds a listener's configured address; nil: net.Listen("tcp", addr). cmd/moonbridge
	// gives one that takes the sockets an upgrade handed over. Read by New; a Reload keeps it.
	Listen func(addr string) (net.Listener, error)
	Logger zerolog.Logger
}

// Server runs listeners and their sessions. Close stops accepting, closes every session with a
// reason and waits for everything it started; Drain lets sessions end first (drain.go); Reload
// swaps the settings new connections use (reload.go), SetRoutes only their routes
// (setroutes.go).
type Server struct {
	current   atomic.Pointer[settings] // what new connections use (settings.go)
	counter   *counter
	log       zerolog.Logger
	mem       *memoryWatch // memory profile, limit and admission (memory.go)
	lifecycle              // draining and listener health (readiness.go)
	// backends count dials per backend and wakes per route; the pools' checkers run on wg.
	backends  *pool.Metrics
	events    *loginEvents    // logins per route and the login webhook's queue
	attack    attackWatch     // the attack mode: rates over the whole proxy (attack.go)
	meter     *auth.Meter     // the session server's login meter, shared by the online routes
	transfers transferMetrics // what drains moved, and the transfer logins that came in
	wsModes   wsModeMetrics   // upgrades that used early data and the raw stream
	panics    atomic.Uint64   // sessions a panic ended on their goroutines (panics.go)
	bans      *bans.List      // who is refused before any dial (banned.go)
	lastID    atomic.Uint64   // the last session id given (sessions.go)
	replicas  Replicas        // shared with the other replicas; nil: none (replicas.go)

	cookiesSeen *cookieSeen                 // transfer cookies believed here: every route's checker, across reloads
	maintenance atomic.Pointer[Maintenance] // routes down for work (maintenance.go); nil: none

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // accept loops, connection starts, HTTP servers, health checkers
	// live counts running sessions, some of which run on net/http's goroutines, which wg does
	// not see; Close waits for both.
	live sync.WaitGroup

	mu        sync.Mutex
	started   bool         // Start bound the listeners; Reload may change them
	checks    healthChecks // of the current routes' pools (pools.go)
	listeners []*listener
	sessions  map[*session]struct{}
	tally     tally // what has ended, for the metrics (metrics.go)

	sampler   sampler      // refusal log lines per reason (refusal.go)
	cheap     sampler      // cheap refusals' log lines per reason (refusal.go)
	blocks    *blockList   // addresses refused at accept (blocklist.go)
	answering refusalSlots // what answering refused clients holds (refuseslots.go)

	engine *loop.Engine                            // the event loops established sessions run on; nil: goroutines (datapath.go)
	tracer *tracing.Tracer                         // joins' traces (tracing.go); nil: off
	bind   func(addr string) (net.Listener, error) // Config.Listen
	// unslotted counts connections accepted whose goroutine has not yet taken (or been refused)
	// a slot of the total: with counter.total, every client connection open (upgrade.go).
	unslotted atomic.Int64

	meterReplicas int // the replicas the login meter's budget is shared by, under mu (metershare.go)
}

// New checks cfg and returns a Server that is not yet listening.
func New(cfg Config) (*Server, error) {
	set, err := newSettings(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		counter: newCounter(set.limits), log: cfg.Logger, lifecycle: newLifecycle(),
		mem: newMemoryWatch(cfg.Memory, cfg.Logger),
		ctx: ctx, cancel: cancel, sessions: make(map[*session]struct{}), tally: newTally(), checks: healthChecks{},
		cheap: sampler{lines: 1, period: cheapLinePeriod}, blocks: newBlockList(cfg.Defence.Block),
		backends: pool.NewMetrics(), events: newLoginEvents(), meter: auth.NewMeter(cfg.LoginMeter, cfg.Logger),
		transfers: newTransferMetrics(),
		wsModes:   newWSModeMetrics(),
		bans:      cfg.Bans,
		tracer:    cfg.Tracer,
		bind:      cfg.Listen,
	}
	if s.bans == nil {
		s.bans = bans.NewList()
	}
	s.replicas, s.counter.replicas = cfg.Replicas, cfg.Replicas
	if s.bind == nil {
		s.bind = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	s.mem.sessions = s.sessionCount
	s.mem.handshakes.limits = s.counter.networkLimits
	s.attachPools(set.router.pools())
	s.cookiesSeen = newCookieSeen(maxSeenCookies)
	s.attachLogins(set)
	s.backends.Follow(nil, set.router.pools())
	s.events.follow(set.router)
	s.current.Store(set)
	return s, nil
}

// sessionCount is how many sessions are open, set up or relaying.
func (s *Server) sessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

func checkProtocols(l Listener, haveTLS bool) error {
	if len(l.Protocols) == 0 {
		return fmt.Errorf("listener %s: no protocols", l.Addr)
	}
	for _, p := range l.Protocols {
		if err := enum.Check(p, protocols...); err != nil || p == "" {
			return fmt.Errorf("listener %s: unknown protocol %q", l.Addr, p)
		}
		if p == WSS && !haveTLS {
			return fmt.Errorf("listener %s: wss needs a TLS server", l.Addr)
		}
	}
	return nil
}

// Start binds every listener and starts accepting; it returns once all are bound.
func (s *Server) Start() error {
	s.startMemoryWatch()
	if err := s.startDataPath(); err != nil {
		return err
	}
	s.mu.Lock() // a Reload waits until every listener is bound and the checks run
	listeners, err := s.bindAll(s.settings().Listeners)
	s.listeners, s.started = listeners, err == nil
	if err == nil {
		s.followChecks(s.settings().router)
	}
	s.mu.Unlock()
	if err != nil {
		s.Close()
		return err
	}
	for _, ln := range listeners {
		s.serveListener(ln)
	}
	s.startAttackWatch()
	s.wg.Add(1)
	go func() { defer s.wg.Done(); s.events.send(s.ctx, s.log) }()
	return nil
}

// serveListener runs ln's accept loop until it is closed or fails for good (accept.go).
func (s *Server) serveListener(ln *listener) {
	s.wg.Add(1)
	go func() { defer s.wg.Done(); ln.acceptLoop() }()
}

// Addrs returns the bound addresses, in listener order (useful with port 0).
func (s *Server) Addrs() []net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	addrs := make([]net.Addr, len(s.listeners))
	for i, ln := range s.listeners {
		addrs[i] = ln.tcp.Addr()
	}
	return addrs
}

// Close stops the listeners, closes every open session with reason "shutdown", and waits.
func (s *Server) Close() error {
	s.draining.Store(true)
	s.shutdown()
	return nil
}

func (s *Server) track(sess *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return false
	}
	sess.id = s.lastID.Add(1)
	s.sessions[sess] = struct{}{}
	s.live.Add(1) // under mu, before Close can reach live.Wait
	return true
}

// untrack is deferred by a tracked session; it runs after the session's log line.
func (s *Server) untrack(sess *session) {
	s.mu.Lock()
	delete(s.sessions, sess)
	s.count(sess)
	s.sessionEnded(len(s.sessions), sess.endReason())
	s.mu.Unlock()
	s.live.Done()
}
