package main

import "github.com/rs/zerolog"

// reloader is what SIGHUP reloads today: gossl's server reads its certificate files again. It
// logs its own result (success with the names, or why it kept the old certificates), because
// its file watcher calls it too.
type reloader interface{ Reload() error }

// reloadOnHangup is what one SIGHUP does. certs is nil when no listener serves wss. The rest of
// the configuration takes a restart for now; the log line says so, so that an operator who
// edited a route is not misled.
func reloadOnHangup(certs reloader, log zerolog.Logger) func() {
	return func() {
		if certs == nil {
			log.Info().Msg("SIGHUP: nothing reloaded: no listener serves wss, and only TLS certificates reload without a restart")
			return
		}
		log.Info().Msg("SIGHUP: reloading TLS certificates (other settings take a restart)")
		_ = certs.Reload() // logged by gossl, once
	}
}
