package main

import (
	"net/http"

	"github.com/moonbridge/moonbridge/relay"
)

// healthSource is the relay's view of itself.
type healthSource interface{ Health() relay.Health }

// handleHealth serves /livez (the process accepts on every listener: 503 once one stopped for
// good, which only a restart mends), /readyz (also 503 while draining) and /healthz, an alias
// of /livez, which it was before /readyz existed. The answer is a short plain-text reason.
func handleHealth(mux *http.ServeMux, src healthSource) {
	live := func(h relay.Health) bool { return h.Live }
	ready := func(h relay.Health) bool { return h.Ready }
	mux.HandleFunc("/livez", healthHandler(src, live))
	mux.HandleFunc("/healthz", healthHandler(src, live))
	mux.HandleFunc("/readyz", healthHandler(src, ready))
}

func healthHandler(src healthSource, ok func(relay.Health) bool) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		h := src.Health()
		if ok(h) {
			w.Write([]byte("ok\n"))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(h.Reason + "\n"))
	}
}
