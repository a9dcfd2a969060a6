package main

import (
	"reflect"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/maintenance"
	"github.com/moonbridge/moonbridge/cmd/internal/routebook"
	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/relay"
)

// configReloader is what SIGHUP does: read the file again, with the same loading, validation
// and flag overrides as at startup (reread), and hand the result to the running relay, its
// routes merged by the book with the routes API's and the discovered ones, which a SIGHUP
// keeps. A file that does not load, validate or apply changes nothing; the log says why, once.
type configReloader struct {
	reread  func() (config.Config, error)
	srv     *relay.Server
	book    *routebook.Book
	bans    *banStore // read again at each SIGHUP, whether or not the config file loads
	log     zerolog.Logger
	reloads *prometheus.CounterVec // moonbridge_config_reloads_total{result}
	// maintenance takes the file's maintenance list at each reload; nil: none is applied.
	maintenance *maintenance.Book

	mu      sync.Mutex
	current config.Config
	tls     *tlsChoice // serves wss now; nil without wss
}

func newReloadCounter() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "moonbridge_config_reloads_total",
		Help: "Configuration reloads (SIGHUP) by result: ok, or failed (the old configuration stays).",
	}, []string{"result"})
	c.WithLabelValues("ok")
	c.WithLabelValues("failed")
	return c
}

// reload is one SIGHUP.
func (r *configReloader) reload() {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer func() { r.bans.reload(r.current.BansFile) }()
	if err := r.apply(); err != nil {
		r.reloads.WithLabelValues("failed").Inc()
		r.log.Error().Err(err).Msg("SIGHUP: configuration not reloaded; keeping the running one")
		return
	}
	r.reloads.WithLabelValues("ok").Inc()
}

func (r *configReloader) apply() error {
	next, err := r.reread()
	if err != nil {
		return err
	}
	relayCfg, err := relaySettings(next, r.log)
	if err != nil {
		return err
	}
	maintenanceFile, err := maintenance.Read(next.Maintenance)
	if err != nil {
		return err
	}
	tlsServer, fresh, err := r.tlsFor(next)
	if err != nil {
		return err
	}
	if tlsServer != nil {
		relayCfg.TLS, relayCfg.TLSReason = tlsServer.server, tlsServer.reason
	}
	var changes relay.ListenerChanges
	reload := func(merged relay.Config) (err error) {
		changes, err = r.srv.Reload(merged)
		return err
	}
	if err := r.book.ApplyFile(next, relayCfg, reload); err != nil {
		if fresh {
			tlsServer.server.Close()
		}
		return err
	}
	if r.maintenance != nil {
		r.maintenance.ApplyFile(maintenanceFile)
	}
	r.logChanges(next, changes)
	logWarnings(r.log, next)
	r.swapTLS(tlsServer)
	r.current = next
	return nil
}

// tlsChoice is a TLS server and why its provider was chosen (for the wss listener's line).
type tlsChoice struct {
	server *gossl.Server
	reason string
}

// tlsFor is the TLS server for next: none without wss; the running one, with its certificates
// read again, when the tls section is unchanged; otherwise a new one (fresh).
func (r *configReloader) tlsFor(next config.Config) (choice *tlsChoice, fresh bool, err error) {
	if !servesWSS(next.Listeners) {
		return nil, false, nil
	}
	if r.tls != nil && reflect.DeepEqual(next.TLS, r.current.TLS) {
		_ = r.tls.server.Reload() // gossl logs the result; a failure keeps the old certificates
		return r.tls, false, nil
	}
	server, reason, err := startTLS(next.TLS, r.log)
	if err != nil {
		return nil, false, err
	}
	return &tlsChoice{server, reason}, true, nil
}

// swapTLS makes next the running TLS server. A replaced one stops watching its files; the
// sessions it started keep their connections.
func (r *configReloader) swapTLS(next *tlsChoice) {
	if r.tls != nil && r.tls != next {
		r.tls.server.Close()
	}
	r.tls = next
}

// close stops the running TLS server, when there is one.
func (r *configReloader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.swapTLS(nil)
}

// drainTimeout is shutdown.drain_timeout as of the last reload.
func (r *configReloader) drainTimeout() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current.Shutdown.DrainTimeout
}

// upgradeSettings is the upgrade section as of the last reload.
func (r *configReloader) upgradeSettings() config.Upgrade {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current.Upgrade
}

// logChanges writes the one line that says what a reload changed.
func (r *configReloader) logChanges(next config.Config, listeners relay.ListenerChanges) {
	changed, restart := changedKeys(r.current, next)
	r.log.Info().Strs("changed", changed).Strs("listeners_added", listeners.Added).
		Strs("listeners_removed", listeners.Removed).Strs("listeners_restarted", listeners.Restarted).
		Strs("need_restart", restart).Msg("SIGHUP: configuration reloaded")
}

// notReloaded are the top-level keys a reload does not apply: the logger, the admin endpoint,
// the memory profile and limit (process-wide: buffer pools, Go's memory limit), the relay's
// data path (its event loops), the discovery sources (their watches), tracing (its exporter)
// and the replicas' shared state (its connections to Redis) are set once (a reload does apply
// discovery.docker.endpoint to wake.container); client is not serve's.
var notReloaded = map[string]bool{"log": true, "admin": true, "memory": true, "relay": true, "discovery": true, "tracing": true, "replicas": true}

// changedKeys lists the top-level keys whose values differ, and those among them that take a
// restart.
func changedKeys(prev, next config.Config) (changed, restart []string) {
	a, b := reflect.ValueOf(prev), reflect.ValueOf(next)
	for i := range a.NumField() {
		key := a.Type().Field(i).Tag.Get("yaml")
		if key == "client" || reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			continue
		}
		changed = append(changed, key)
		if notReloaded[key] {
			restart = append(restart, key)
		}
	}
	return changed, restart
}
