package relay

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/webhook"
)

// LoginWebhook posts a JSON LoginEvent to URL when a player joins (its name is known and a
// backend took the login) and when that session ends. Events go through a bounded queue to
// one sender goroutine, never from the data path: a full queue drops the event (counted) and a
// slow endpoint delays only the events behind it, each post bounded by Timeout.
type LoginWebhook struct {
	URL     string        `yaml:"url"`     // http:// or https://; "": no webhook
	Timeout time.Duration `yaml:"timeout"` // per post; 0: DefaultWebhookTimeout
}

// DefaultWebhookTimeout bounds one webhook post when LoginWebhook.Timeout is 0.
const DefaultWebhookTimeout = webhook.DefaultTimeout

// webhookQueue is how many events may wait for the sender; more are dropped.
const webhookQueue = 1024

// webhookLogBurst failed posts per webhookLogPeriod are logged; the metrics count every one.
const (
	webhookLogBurst  = 5
	webhookLogPeriod = 10 * time.Second
)

// LoginEvent is what a login webhook gets. A leave carries the session's bytes and duration.
type LoginEvent struct {
	Event     string    `json:"event"` // join, leave
	Name      string    `json:"name"`
	UUID      string    `json:"uuid,omitempty"` // where the player's version sends one
	Address   string    `json:"address"`        // the player's, after PROXY and trusted forwarded headers
	Route     string    `json:"route"`
	Backend   string    `json:"backend"`
	Time      time.Time `json:"time"`
	BytesUp   *int64    `json:"bytes_up,omitempty"`
	BytesDown *int64    `json:"bytes_down,omitempty"`
	Duration  *float64  `json:"duration_seconds,omitempty"`
}

type queuedEvent struct {
	hook  LoginWebhook // the session's, so a reload changes the endpoint of new sessions only
	event LoginEvent
}

// webhookResults label moonbridge_login_webhooks_total; each is a series from the start.
var webhookResults = []string{"sent", "failed", "dropped"}

// loginEvents counts logins per route and sends login webhooks.
type loginEvents struct {
	logins   *prometheus.CounterVec
	webhooks *prometheus.CounterVec
	queue    chan queuedEvent
	client   *http.Client
}

func newLoginEvents() *loginEvents {
	e := &loginEvents{
		logins: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "moonbridge_logins_total",
			Help: "Logins a backend took, by route."}, []string{"route"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "moonbridge_login_webhooks_total",
			Help: "Login webhook events: sent (a 2xx answer), failed (an error or another status), dropped (the queue was full)."},
			[]string{"result"}),
		queue:  make(chan queuedEvent, webhookQueue),
		client: &http.Client{},
	}
	for _, r := range webhookResults {
		e.webhooks.WithLabelValues(r)
	}
	return e
}

// follow makes the login series of router's routes exist, at 0 for new ones.
func (e *loginEvents) follow(router *Router) {
	for i := range router.routes {
		e.logins.WithLabelValues(router.routes[i].Label())
	}
}

func (e *loginEvents) describe(ch chan<- *prometheus.Desc) {
	e.logins.Describe(ch)
	e.webhooks.Describe(ch)
}

func (e *loginEvents) collect(ch chan<- prometheus.Metric) {
	e.logins.Collect(ch)
	e.webhooks.Collect(ch)
}

// enqueue hands an event to the sender without waiting: it runs on the data path.
func (e *loginEvents) enqueue(hook LoginWebhook, ev LoginEvent) {
	if hook.URL == "" {
		return
	}
	select {
	case e.queue <- queuedEvent{hook: hook, event: ev}:
	default:
		e.webhooks.WithLabelValues("dropped").Inc()
	}
}

// send posts queued events until ctx ends; what is still queued then is dropped.
func (e *loginEvents) send(ctx context.Context, log zerolog.Logger) {
	sampled := log.Sample(&zerolog.BurstSampler{Burst: webhookLogBurst, Period: webhookLogPeriod})
	for {
		select {
		case <-ctx.Done():
			return
		case q := <-e.queue:
			result := "sent"
			if err := e.post(ctx, q); err != nil {
				result = "failed"
				sampled.Warn().Err(err).Str("event", q.event.Event).Str("player", q.event.Name).Msg("login webhook failed")
			}
			e.webhooks.WithLabelValues(result).Inc()
		}
	}
}

func (e *loginEvents) post(ctx context.Context, q queuedEvent) error {
	return webhook.Post(ctx, e.client, q.hook.URL, q.hook.Timeout, q.event)
}

// loginRelayed counts a login a backend took and arranges its join event for when the player's
// name is known (now, or when the up direction brings Login Start).
func (s *session) loginRelayed(route *Route) {
	s.srv.events.logins.WithLabelValues(route.Label()).Inc()
	s.player.whenFound(func() {
		s.joined.Store(true)
		s.srv.events.enqueue(s.conf.LoginWebhook, s.loginEvent("join"))
	})
}

// sendLeave queues the leave event of a session whose join was sent; it runs as the session
// ends, on its goroutine or its event loop.
func (s *session) sendLeave() {
	if !s.joined.Load() {
		return
	}
	ev := s.loginEvent("leave")
	up, down := s.relayed()
	seconds := time.Since(s.started).Seconds()
	ev.BytesUp, ev.BytesDown, ev.Duration = &up, &down, &seconds
	s.srv.events.enqueue(s.conf.LoginWebhook, ev)
}

func (s *session) loginEvent(kind string) LoginEvent {
	return LoginEvent{Event: kind, Name: s.player.name, UUID: s.player.uuid, Address: s.info.client.String(),
		Route: s.routeName(), Backend: s.line.backend, Time: time.Now().UTC()}
}
