package auth

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// MeterSettings bound the hasJoined requests of the whole process (login.meter): a token bucket
// of Rate requests a second holding up to Burst, and a queue of up to Queue players who wait at
// most MaxWait for a turn.
type MeterSettings struct {
	Rate    float64       `yaml:"rate"`     // requests a second; 0 or less: unmetered
	Burst   int           `yaml:"burst"`    // requests that may go at once after a quiet spell
	Queue   int           `yaml:"queue"`    // players who may wait for a turn; 0: none waits
	MaxWait time.Duration `yaml:"max_wait"` // the longest a player waits for a turn
}

// DefaultMeterSettings stay inside Mojang's allowance of about 600 hasJoined requests per 10
// minutes per address. A token bucket lets through at most Burst + Rate x window requests in any
// window: 40 + 0.9/s x 600 s = 580 in 10 minutes, 20 under the allowance. (1/s would already
// be 600 without any burst.) A player waits at most 20 s: with the 5 s session_timeout that is
// 25 s without a packet, under the vanilla client's 30 s read timeout. At 0.9/s about 18 players
// are served in 20 s, so a queue of 20 holds what can be served and no more.
func DefaultMeterSettings() MeterSettings {
	return MeterSettings{Rate: 0.9, Burst: 40, Queue: 20, MaxWait: 20 * time.Second}
}

// Backoff bounds: a pause without Retry-After starts at backoffBase and doubles while the
// session server keeps failing; no pause (Retry-After included) is longer than maxBackoff.
const (
	backoffBase = 2 * time.Second
	maxBackoff  = 60 * time.Second
)

// Meter is the login meter in front of the session server, shared by every online route and
// kept across reloads (Configure). Acquire gives a login its turn; Observe tells the meter how
// the request went, so that a 429, a 5xx or a timeout pauses it. It is fair between client
// networks (meternetwork.go). A nil Meter meters nothing.
type Meter struct {
	log zerolog.Logger

	mu          sync.Mutex
	set         MeterSettings
	strict      bool
	tokens      float64
	last        time.Time // tokens are counted up to here (in the future during a pause)
	pausedUntil time.Time
	failures    int    // consecutive backoffs, for the doubling
	epoch       uint64 // counts backoffs: a request sent before the current one starts none
	queue       []*meterWaiter
	timer       *time.Timer // wakes the queue's head
	networks    map[netip.Prefix]*meterNetwork
	forgotAt    time.Time // the last forgetNetworks
	counts      meterCounts
	closed      chan struct{} // closed by Close: no turn is given from then on
	closeOnce   sync.Once
}

type meterWaiter struct {
	granted chan struct{}
	epoch   uint64
	network netip.Prefix
}

// Ticket is a turn Acquire gave; Observe takes it back with the request's result.
type Ticket struct {
	epoch   uint64
	network netip.Prefix
}

// NewMeter is a meter with set, its bucket full.
func NewMeter(set MeterSettings, log zerolog.Logger) *Meter {
	m := &Meter{log: log, set: set, last: time.Now(), counts: newMeterCounts(), closed: make(chan struct{}),
		networks: map[netip.Prefix]*meterNetwork{}}
	m.tokens = float64(m.burst())
	return m
}

// Configure makes set the meter's settings (a reload). The bucket keeps what it holds (at most
// the new burst) and the waiting players keep their places; a new rate applies from now.
func (m *Meter) Configure(set MeterSettings) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.refill(now)
	wasUnmetered := m.set.Rate <= 0
	m.set = set
	if wasUnmetered {
		m.tokens = float64(m.burst())
	}
	m.tokens = min(m.tokens, float64(m.burst()))
	m.arm(now)
}

// SetStrict is for attack mode: while on, the burst is 1, so that logins go one at a time at the
// rate (through the queue) and a flood cannot spend a saved-up burst of the allowance at once.
// Off restores the configured burst, refilling from what the bucket holds.
func (m *Meter) SetStrict(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.refill(now)
	m.strict = on
	m.tokens = min(m.tokens, float64(m.burst()))
	m.arm(now)
}

// Strict says whether SetStrict(true) holds.
func (m *Meter) Strict() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.strict
}

// MeterError is a login the meter could not give a turn in time; Reason is a label of
// moonbridge_login_meter_refused_total.
type MeterError struct {
	Reason string
	Wait   time.Duration // the estimated wait, for wait and backoff
}

// Meter refusal reasons.
const (
	MeterQueueFull = "queue_full" // Queue players are waiting already
	MeterWait      = "wait"       // the turn would come (or did not come) within MaxWait
	MeterBackoff   = "backoff"    // the session server's pause lasts longer than MaxWait
	// MeterNetworkBusy: the client's network has a request queued or in flight, and no turn is
	// free (one at a time per network while anyone waits).
	MeterNetworkBusy = "network_busy"
	// MeterNetworkBackoff: the session server refused the network's last request (no account),
	// and its pause has not ended.
	MeterNetworkBackoff = "network_backoff"
)

var meterReasons = []string{MeterQueueFull, MeterWait, MeterBackoff, MeterNetworkBusy, MeterNetworkBackoff}

func (e *MeterError) Error() string {
	switch e.Reason {
	case MeterQueueFull:
		return "login meter: the queue is full"
	case MeterNetworkBusy:
		return "login meter: a login of the same network waits or is being checked"
	case MeterNetworkBackoff:
		return fmt.Sprintf("login meter: the session server refused this network's last login; its next is %s away", e.Wait.Round(time.Millisecond))
	}
	return fmt.Sprintf("login meter: %s: the turn is %s away, past the maximum wait", e.Reason, e.Wait.Round(time.Millisecond))
}

// ErrMeterClosed is every Acquire's answer once the meter is closed (the proxy drains).
var ErrMeterClosed = errors.New("login meter: the proxy is shutting down")

// Close ends the waits: a waiting login and every later one gets ErrMeterClosed, so that a
// drain does not wait for players who have not joined yet.
func (m *Meter) Close() {
	if m != nil {
		m.closeOnce.Do(func() { close(m.closed) })
	}
}

// Check says, before a login's costly part (the Encryption Request and the RSA decryption of
// its answer), whether Acquire would refuse a login of network now: nil when a turn is free or
// the queue has a place with a turn within MaxWait, else the refusal, counted as Acquire counts
// it. It reserves nothing: Acquire decides, once the player has answered.
func (m *Meter) Check(network netip.Prefix) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := m.turn(network, time.Now())
	return err
}

// Acquire waits for the turn of a login of network (the client's network as the relay counts
// it; the zero Prefix is no network, counted by nobody) to ask the session server: at once while
// the bucket holds a token and nobody waits, else in the queue. A *MeterError when the queue is
// full, the network has a request queued or in flight or its pause, or the turn would not come
// within MaxWait; ErrMeterClosed once closed; ctx's error when ctx ends first.
func (m *Meter) Acquire(ctx context.Context, network netip.Prefix) (Ticket, error) {
	if m == nil {
		return Ticket{}, nil
	}
	m.mu.Lock()
	now := time.Now()
	free, err := m.turn(network, now)
	switch {
	case free:
		m.take()
		m.hold(network)
		t := Ticket{m.epoch, network}
		m.mu.Unlock()
		return t, nil
	case err != nil:
		m.mu.Unlock()
		return Ticket{}, err
	}
	w := &meterWaiter{granted: make(chan struct{}), network: network}
	m.hold(network)
	m.queue = append(m.queue, w)
	m.arm(now)
	maxWait := m.set.MaxWait
	m.mu.Unlock()
	return m.await(ctx, w, maxWait)
}

// turn is what a login of network arriving now gets, for Check and Acquire alike (the caller
// holds mu): free, a turn at once (a token, and nobody waits); else an error (closed, or the
// refusal, counted); else neither, a place in the queue.
func (m *Meter) turn(network netip.Prefix, now time.Time) (free bool, err error) {
	select {
	case <-m.closed:
		return false, ErrMeterClosed
	default:
	}
	m.refill(now)
	m.forgetNetworks(now)
	free = len(m.queue) == 0 && m.ready(now)
	me := m.networkRefusal(network, free, now)
	if me == nil && !free {
		me = m.admit(now)
	}
	if me != nil {
		m.counts.refused[me.Reason]++
		return false, me
	}
	return free, nil
}

// await waits for w's turn, at most maxWait.
func (m *Meter) await(ctx context.Context, w *meterWaiter, maxWait time.Duration) (Ticket, error) {
	timeout := time.NewTimer(maxWait)
	defer timeout.Stop()
	var err error
	select {
	case <-w.granted:
		return Ticket{w.epoch, w.network}, nil
	case <-timeout.C:
		err = &MeterError{Reason: MeterWait, Wait: maxWait}
	case <-ctx.Done():
		err = ctx.Err()
	case <-m.closed:
		err = ErrMeterClosed
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.leave(w) { // granted meanwhile
		return Ticket{w.epoch, w.network}, nil
	}
	m.unhold(w.network)
	if me, ok := err.(*MeterError); ok {
		m.counts.refused[me.Reason]++
	}
	return Ticket{}, err
}

// Observe takes back t with the result of its hasJoined request: a 429, a 5xx or a timeout
// pauses the meter (Retry-After, or a doubling pause, at most maxBackoff), unless a pause began
// after t's request was sent; any other answer ends the doubling. A refusal (no account)
// pauses t's network (settle). An unmetered meter (rate 0) never pauses.
func (m *Meter) Observe(t Ticket, err error) {
	if m == nil {
		return
	}
	cause, retryAfter := backoffCause(err)
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.settle(t.network, err, now)
	switch {
	case m.set.Rate <= 0:
		return // unmetered: no pauses either
	case t.epoch != m.epoch:
		return // sent before the current pause began: that pause covers it
	}
	if cause == "" {
		if err == nil || errors.Is(err, ErrNotAuthenticated) {
			m.failures = 0
		}
		return
	}
	m.failures++
	m.epoch++
	pause := retryAfter
	if pause <= 0 {
		pause = doubled(backoffBase, m.failures-1, maxBackoff)
	}
	pause = min(pause, maxBackoff)
	m.pausedUntil = now.Add(pause)
	m.tokens, m.last = 0, m.pausedUntil // after the pause the bucket fills again from empty
	m.counts.backoffs[cause]++
	m.log.Warn().Str("cause", cause).Dur("pause", pause).Err(err).
		Msg("the session server asked to slow down or failed: hasJoined requests pause, then resume at the meter's rate")
	m.arm(now)
}

// doubled is d doubled times times, at most limit.
func doubled(d time.Duration, times int, limit time.Duration) time.Duration {
	for ; times > 0 && d < limit; times-- {
		d *= 2
	}
	return min(d, limit)
}

// backoffCause says whether a hasJoined error pauses the meter, and for how long the session
// server asked (Retry-After; 0 when it did not say).
func backoffCause(err error) (cause string, retryAfter time.Duration) {
	var se *SessionServerError
	if !errors.As(err, &se) {
		return "", 0
	}
	switch {
	case se.Status == 429:
		return BackoffTooManyRequests, se.RetryAfter
	case se.Status >= 500:
		return BackoffServerError, se.RetryAfter
	case se.Timeout():
		return BackoffTimeout, 0
	}
	return "", 0
}

// Backoff causes, labels of moonbridge_session_server_backoffs_total.
const (
	BackoffTooManyRequests = "too_many_requests" // HTTP 429
	BackoffServerError     = "server_error"      // HTTP 5xx
	BackoffTimeout         = "timeout"           // no answer within session_timeout
)

var backoffCauses = []string{BackoffTooManyRequests, BackoffServerError, BackoffTimeout}
