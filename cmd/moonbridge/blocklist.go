package main

import (
	"encoding/json"
	"net/http"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/relay"
)

// blockListSource is the relay's block list (defence.block), for the admin endpoint.
type blockListSource interface {
	BlockList() []relay.BlockedNetwork
	ClearBlockList() int
}

// handleBlockList serves GET /blocklist, the blocked addresses as JSON
// ({"blocked":[{"network":"203.0.113.9/32","until":"..."}]}), and POST /blocklist/clear, which
// empties the list, answers {"cleared":N} and logs one line. adminGuard checks the request
// first.
func handleBlockList(mux *http.ServeMux, src blockListSource, log zerolog.Logger) {
	mux.HandleFunc("GET /blocklist", func(w http.ResponseWriter, _ *http.Request) {
		blocked := src.BlockList()
		if blocked == nil {
			blocked = []relay.BlockedNetwork{}
		}
		writeJSON(w, map[string]any{"blocked": blocked})
	})
	clear := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := src.ClearBlockList()
		log.Info().Int("cleared", n).Str("from", r.RemoteAddr).Msg("block list cleared by the admin endpoint")
		writeJSON(w, map[string]int{"cleared": n})
	})
	mux.Handle("POST /blocklist/clear", clear)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
