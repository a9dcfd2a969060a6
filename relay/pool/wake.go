package pool

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/webhook"
	"github.com/moonbridge/moonbridge/mc"
)

// Wake starts a route's sleeping server when a player logs in and none of its backends takes
// the login, and stops it again after it has had no players for a while.
type Wake struct {
	// Command starts the server, once per wake, and must return once it has launched it
	// (docker start, systemctl start, or sh -c '... &'); it may take up to ReadyTimeout. Or
	// Webhook gets a POST {"action":"start","route":...} instead, or Runtime starts it.
	Command []string
	Webhook string
	Runtime Runtime
	// ReadyTimeout is how long after the start the backend has to accept a connection; a held
	// login waits that long. 0: DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// StopAfterIdle stops a server moonbridge has seen running once it has had no player for this
	// long, with StopCommand (or a POST {"action":"stop"} to Webhook, or Runtime); 0 never stops
	// it.
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

// ways counts the ways w is told to start the server: more than one is a mistake.
func (w *Wake) ways() int {
	n := 0
	for _, set := range []bool{len(w.Command) > 0, w.Webhook != "", w.Runtime != nil} {
		if set {
			n++
		}
	}
	return n
}

// Runtime starts and stops a route's server through what runs it, such as a container engine
// (discover/docker's Container). Start returns once the server is launched, not up; both may
// take up to ReadyTimeout.
type Runtime interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// DefaultReadyTimeout is Wake.ReadyTimeout when it is 0: a modded server can take minutes.
const DefaultReadyTimeout = 3 * time.Minute

// wakeProbeEvery is how often a starting server is tried.
const wakeProbeEvery = 500 * time.Millisecond

// ErrStarting ends a login that was told to come back while its server starts, and a ping
// answered with the starting MOTD.
var ErrStarting = errors.New("the server is starting")

// waker is a pool's wake state. One start runs at a time; held logins wait for its ready.
type waker struct {
	cfg  Wake
	pool *Pool
	log  zerolog.Logger // the server's, with the route

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
	if !w.pool.env.Spawn(func() { finish(w.start(ctx)) }) {
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
		if w.pool.accepts(ctx) {
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

// act runs command, or posts action to the webhook, or has the runtime do it.
func (w *waker) act(ctx context.Context, action string, command []string) error {
	if w.cfg.Webhook != "" {
		return webhook.Post(ctx, http.DefaultClient, w.cfg.Webhook, 0, map[string]string{"action": action, "route": w.pool.cfg.Route})
	}
	if len(command) == 0 && w.cfg.Runtime == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	switch {
	case w.cfg.Runtime != nil && action == "start":
		return w.cfg.Runtime.Start(ctx)
	case w.cfg.Runtime != nil:
		return w.cfg.Runtime.Stop(ctx)
	}
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

// accepts says whether some backend of p accepts a TCP connection now.
func (p *Pool) accepts(ctx context.Context) bool {
	for _, b := range p.members {
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
	busy := w.pool.activeSessions() > 0
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

// count counts a wake result of w's route.
func (w *waker) count(result string) { w.pool.env.Metrics.countWake(w.pool.cfg.Route, result) }

// Wakes says whether p starts its route's sleeping server for a login no backend took.
func (p *Pool) Wakes() bool { return p.waker != nil }

// Wake starts p's server unless a start is under way (it runs until ctx, the server's, ends).
// done ends when the start has; hold says whether a login waits for it, or is to be told
// ErrStarting at once.
func (p *Pool) Wake(ctx context.Context) (done <-chan struct{}, hold bool) {
	return p.waker.wake(ctx), p.waker.cfg.Hold
}

// WakeAnswer is fallback, the answer when no backend took a session (err), with the starting
// MOTD and message while p's server starts.
func (p *Pool) WakeAnswer(fallback mc.Answer, err error) mc.Answer {
	if w := p.waker; w != nil && (errors.Is(err, ErrStarting) || w.isStarting()) {
		if w.cfg.StartingMOTD != "" {
			fallback.Status.MOTD = w.cfg.StartingMOTD
		}
		if w.cfg.StartingMessage != "" {
			fallback.Disconnect = w.cfg.StartingMessage
		}
	}
	return fallback
}
