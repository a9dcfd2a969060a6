package relay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/mc"
)

// Wake starts a route's sleeping server when a player logs in and none of its backends takes
// the login, and stops it again after it has had no players for a while.
type Wake struct {
	// Command starts the server, once per wake, and must return once it has launched it
	// (docker start, systemctl start, or sh -c '... &'); it may take up to ReadyTimeout. Or
	// Webhook gets a POST {"action":"start","route":...} instead.
	Command []string
	Webhook string
	// ReadyTimeout is how long after the start the backend has to accept a connection; a held
	// login waits that long. 0: DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// StopAfterIdle stops a server moonbridge has seen running once it has had no player for this
	// long, with StopCommand (or a POST {"action":"stop"} to Webhook); 0 never stops it.
	StopAfterIdle time.Duration
	StopCommand   []string
	// Hold keeps a login waiting until the server is up (the client shows "Logging in..."); false
	// disconnects it at once with StartingMessage, to join again when the server list says so.
	Hold bool
	// StartingMOTD is the server-list MOTD while the server starts, StartingMessage the login
	// disconnect without Hold or when the server did not come up in time.
	StartingMOTD    string
	StartingMessage string
}

// DefaultReadyTimeout is Wake.ReadyTimeout when it is 0: a modded server can take minutes.
const DefaultReadyTimeout = 3 * time.Minute

// wakeProbeEvery is how often a starting server is tried.
const wakeProbeEvery = 500 * time.Millisecond

// ErrStarting ends a login that was told to come back while its server starts, and a ping
// answered with the starting MOTD.
var ErrStarting = errors.New("the server is starting")

// wakeResults label moonbridge_wakes_total.
var wakeResults = []string{"started", "ready", "timeout", "failed", "stopped"}

func newWakeCounter() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "moonbridge_wakes_total",
		Help: "Sleeping servers woken and stopped, by route and result: started (the start command or webhook ran), " +
			"ready (the server answered after a start), timeout (it did not within ready_timeout), failed (the " +
			"command or webhook failed), stopped (idle, the stop command or webhook ran)."}, []string{"route", "result"})
}

// waker is a route's wake state. One start runs at a time; held logins wait for its ready.
type waker struct {
	cfg   Wake
	route *Route
	count func(result string)
	log   zerolog.Logger
	spawn func(func()) bool // runs on a goroutine the server waits for; false when it is closing

	mu       sync.Mutex
	starting chan struct{} // non-nil while a start runs; closed when it has ended
	running  bool          // moonbridge has seen the server up since it last stopped it
	lastBusy time.Time     // when the server last had a player
}

func (w *waker) timeout() time.Duration {
	if w.cfg.ReadyTimeout > 0 {
		return w.cfg.ReadyTimeout
	}
	return DefaultReadyTimeout
}

// isStarting says whether a start is under way, for the server list.
func (w *waker) isStarting() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.starting != nil
}

// wake starts the server unless a start is under way, and returns what ends when it has.
func (w *waker) wake(ctx context.Context) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.starting != nil {
		return w.starting
	}
	done := make(chan struct{})
	w.starting = done
	finish := func(up bool) {
		w.mu.Lock()
		w.starting = nil
		if up {
			w.running, w.lastBusy = true, time.Now()
		}
		w.mu.Unlock()
		close(done)
	}
	if !w.spawn(func() { finish(w.start(ctx)) }) {
		w.starting = nil
		close(done)
	}
	return done
}

// start runs the start command or webhook and waits until a backend accepts a connection.
func (w *waker) start(ctx context.Context) bool {
	w.log.Info().Msg("waking the server: a player logs in and no backend answers")
	if err := w.act(ctx, "start", w.cfg.Command); err != nil {
		w.count("failed")
		w.log.Warn().Err(err).Msg("the wake command failed")
		return false
	}
	w.count("started")
	ctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	began := time.Now()
	for {
		if w.route.accepts(ctx) {
			w.count("ready")
			w.log.Info().Dur("took", time.Since(began)).Msg("the woken server is up")
			return true
		}
		select {
		case <-ctx.Done():
			w.count("timeout")
			w.log.Warn().Dur("ready_timeout", w.timeout()).Msg("the woken server did not come up in time")
			return false
		case <-time.After(wakeProbeEvery):
		}
	}
}

// act runs command, or posts action to the webhook when there is one.
func (w *waker) act(ctx context.Context, action string, command []string) error {
	if w.cfg.Webhook != "" {
		return postJSON(ctx, http.DefaultClient, w.cfg.Webhook, 0, map[string]string{"action": action, "route": w.route.Label()})
	}
	if len(command) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	// Something the command left running in the background may hold its output open.
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return &WakeCommandError{Command: command, Err: err, Output: string(out[max(0, len(out)-512):])}
	}
	return nil
}

// WakeCommandError is a wake or stop command that failed, with the end of its output.
type WakeCommandError struct {
	Command []string
	Err     error
	Output  string
}

func (e *WakeCommandError) Error() string {
	return fmt.Sprintf("%q: %v: %s", e.Command, e.Err, e.Output)
}

func (e *WakeCommandError) Unwrap() error { return e.Err }

// accepts says whether some backend of r accepts a TCP connection now.
func (r *Route) accepts(ctx context.Context) bool {
	for _, b := range r.backends {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", b.Addr)
		if err == nil {
			conn.Close()
			return true
		}
	}
	return false
}

// watchIdle stops the server after StopAfterIdle without a player, until ctx ends.
func (w *waker) watchIdle(ctx context.Context) {
	every := min(w.cfg.StopAfterIdle/4, 5*time.Second)
	ticker := time.NewTicker(max(every, 10*time.Millisecond))
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if w.idleLongEnough() {
			w.log.Info().Dur("stop_after_idle", w.cfg.StopAfterIdle).Msg("stopping the idle server")
			if err := w.act(ctx, "stop", w.cfg.StopCommand); err != nil {
				w.count("failed")
				w.log.Warn().Err(err).Msg("the stop command failed")
				continue
			}
			w.count("stopped")
		}
	}
}

// idleLongEnough notes players on the route and says, once, when a running server has had none
// for StopAfterIdle (it is then no longer running).
func (w *waker) idleLongEnough() bool {
	busy := w.route.activeSessions() > 0
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case busy:
		w.running, w.lastBusy = true, time.Now()
	case w.running && w.starting == nil && time.Since(w.lastBusy) >= w.cfg.StopAfterIdle:
		w.running = false
		return true
	}
	return false
}

// activeSessions counts the sessions relayed to r's backends now.
func (r *Route) activeSessions() int64 {
	var n int64
	for _, b := range r.backends {
		n += b.active.Load()
	}
	return n
}

// attachWakers gives the wakers of set's routes the server's log and counter; New and Reload
// call it before set serves a session.
func (s *Server) attachWakers(set *settings) {
	for i := range set.router.routes {
		route := &set.router.routes[i]
		if route.Wake == nil {
			continue
		}
		label := route.Label()
		route.waker = &waker{cfg: *route.Wake, route: route, spawn: s.spawn,
			count: func(result string) { s.wakes.WithLabelValues(label, result).Inc() },
			log:   s.log.With().Str("route", label).Logger()}
		for _, result := range wakeResults {
			s.wakes.WithLabelValues(label, result)
		}
	}
}

// spawn runs f on a goroutine Close waits for, as it waits for sessions; false, and nothing
// runs, once the server is closing.
func (s *Server) spawn(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return false
	}
	s.live.Add(1) // under mu, before Close can reach live.Wait, as track does
	go func() { defer s.live.Done(); f() }()
	return true
}

// startIdleStops runs the idle watch of every route of set that stops its server, on s.wg
// until ctx (the settings' health check context) ends.
func (s *Server) startIdleStops(ctx context.Context, set *settings) {
	for i := range set.router.routes {
		if w := set.router.routes[i].waker; w != nil && w.cfg.StopAfterIdle > 0 {
			s.wg.Add(1)
			go func() { defer s.wg.Done(); w.watchIdle(ctx) }()
		}
	}
}

// wakeDial is a login's second chance on a route that wakes its server, after no backend took
// it (dialErr): it starts the server, then with Hold waits for it and dials again; without Hold
// it ends with ErrStarting, for the starting message. A status ping wakes nothing.
func (s *session) wakeDial(route *Route, capture string, first []byte, login bool, dialErr error) (net.Conn, *backendState, error) {
	w := route.waker
	if !login {
		return nil, nil, dialErr
	}
	done := w.wake(s.srv.ctx)
	if !w.cfg.Hold {
		return nil, nil, errors.Join(ErrStarting, dialErr)
	}
	select {
	case <-done:
	case <-s.srv.ctx.Done():
		return nil, nil, errShutdown
	}
	conn, chosen, err := s.srv.dialRoute(route, capture, s.conf.limits.DialTimeout, s.info.client, addrPortOf(s.down.LocalAddr()), first)
	if err != nil {
		return nil, nil, errors.Join(ErrStarting, err)
	}
	return conn, chosen, nil
}

// wakeAnswer is the fallback while route's server starts: the starting MOTD and message.
func (s *session) wakeAnswer(route *Route, err error) mc.Answer {
	answer := s.fallback()
	if w := route.waker; w != nil && (errors.Is(err, ErrStarting) || w.isStarting()) {
		if w.cfg.StartingMOTD != "" {
			answer.Status.MOTD = w.cfg.StartingMOTD
		}
		if w.cfg.StartingMessage != "" {
			answer.Disconnect = w.cfg.StartingMessage
		}
	}
	return answer
}
