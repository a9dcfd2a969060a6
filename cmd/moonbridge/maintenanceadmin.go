package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/cmd/internal/maintenance"
	"github.com/moonbridge/moonbridge/relay"
)

// maxMaintenanceBody bounds PUT /maintenance's body: an icon (16 KiB of PNG, 22 KB in base64),
// an allowlist of relay.MaxAllowlist entries (a UUID is 36 bytes) and two texts fit.
const maxMaintenanceBody = 128 << 10

// maintenanceAnswer is what GET and PUT /maintenance answer: the maintenance now
// (maintenance.Status), and what a PUT with kick did.
type maintenanceAnswer struct {
	maintenance.Status
	Kicks *relay.MaintenanceKicks `json:"kicks,omitempty"`
}

// handleMaintenance serves GET /maintenance (the maintenance now) and PUT /maintenance (one
// route's entry, or every route's: config.MaintenanceEntry in JSON, the icon as a PNG in
// base64, kick to end the sessions of players not on the allowlist). A PUT answers 400 for a
// body that is not one JSON object of known keys or has a bad value (the error names the
// key), 413 past maxMaintenanceBody, 404 for a route that is not served. adminGuard checks
// the request first: both need the admin token, since the allowlists name players.
func handleMaintenance(mux *http.ServeMux, book *maintenance.Book) {
	mux.HandleFunc("GET /maintenance", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, maintenanceAnswer{Status: book.Status()})
	})
	mux.HandleFunc("PUT /maintenance", func(w http.ResponseWriter, r *http.Request) {
		entry, status, err := readMaintenanceEntry(w, r)
		if err != nil {
			http.Error(w, err.Error(), status)
			return
		}
		kicks, err := book.Put(entry, r.RemoteAddr)
		var unknown *maintenance.UnknownRouteError
		switch {
		case errors.As(err, &unknown):
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, maintenanceAnswer{Status: book.Status(), Kicks: kicks})
	})
}

// readMaintenanceEntry reads a PUT's body: one JSON object of MaintenanceEntry's keys, the
// defaults for those it leaves out.
func readMaintenanceEntry(w http.ResponseWriter, r *http.Request) (config.MaintenanceEntry, int, error) {
	entry := config.DefaultMaintenanceEntry()
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxMaintenanceBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&entry)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("want one JSON object, found more after it")
		}
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return entry, http.StatusRequestEntityTooLarge, errors.New("the body is larger than 128 KiB")
	case err != nil:
		return entry, http.StatusBadRequest, errors.New("the body: " + err.Error())
	}
	return entry, http.StatusOK, nil
}
