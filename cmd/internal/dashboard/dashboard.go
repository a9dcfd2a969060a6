// Package dashboard is the admin port's web page: the routes and their backends' health, the
// players per route, the attack mode, the block list, the login meter, and graphs of players
// and bandwidth over the last hour. The page is plain HTML, CSS and JavaScript modules
// embedded in the binary (assets/); it reads GET /dashboard/state, which holds counts only,
// never a player's name or address. The actions it offers are the admin port's own paths, sent
// with the token the owner types in, which the admin guard checks in front of every path.
package dashboard

import (
	"context"
	"embed"
	"io/fs"
	"net/http"

	"github.com/moonbridge/moonbridge/relay"
)

// Source is what the dashboard reads of the relay (*relay.Server).
type Source interface {
	Overview() relay.Overview
	Health() relay.Health
}

//go:embed assets
var assets embed.FS

// Dashboard serves the page and keeps the graphs' history.
type Dashboard struct {
	src      Source
	sampler  *sampler
	every    float64 // seconds between samples, for the page's axis
	tokenSet bool    // the admin port has a token: the page's actions need it
}

// New is a dashboard over src; tokenSet says whether the admin port checks a token.
func New(src Source, sampling Sampling, tokenSet bool) *Dashboard {
	return &Dashboard{src: src, sampler: newSampler(src, sampling), every: sampling.Every.Seconds(), tokenSet: tokenSet}
}

// Run keeps the history until ctx ends.
func (d *Dashboard) Run(ctx context.Context) { d.sampler.run(ctx) }

// Handle serves on mux: GET /dashboard and /dashboard/ (the page), GET /dashboard/assets/ (its styles and
// scripts), GET /dashboard/state (the JSON the page reads) and POST /dashboard/check, which
// answers 204 to a request the admin guard let through, so that the page can tell whether the
// token it was given is the right one.
func (d *Dashboard) Handle(mux *http.ServeMux) {
	files, _ := fs.Sub(assets, "assets") // assets is embedded: the folder is there
	page := pageHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, files, "index.html")
	}))
	mux.Handle("GET /dashboard", page)
	mux.Handle("GET /dashboard/{$}", page)
	mux.Handle("GET /dashboard/assets/", pageHeaders(http.StripPrefix("/dashboard/assets", http.FileServerFS(files))))
	mux.Handle("GET /dashboard/state", pageHeaders(http.HandlerFunc(d.serveState)))
	mux.HandleFunc("POST /dashboard/check", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
}

// contentPolicy lets the page load its own scripts, styles and JSON and nothing else: no
// inline script or style, no other origin, no frame around it, no form sent anywhere.
const contentPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// pageHeaders puts the page's security headers on next's answers, and keeps browsers from
// caching them, so that an upgraded binary's page is the one loaded.
func pageHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		next.ServeHTTP(w, r)
	})
}
