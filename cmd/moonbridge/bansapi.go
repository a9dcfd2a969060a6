package main

import (
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/bans"
)

// banKicker kicks the players a new ban matches (relay.Server.KickBanned).
type banKicker interface {
	KickBanned(b bans.Ban) []relay.KickResult
}

// banRequest is POST /bans's body: bans.Entry's keys, expires also a duration from now.
type banRequest struct {
	Kind        bans.Kind `json:"kind"`
	Value       string    `json:"value"`
	Reason      string    `json:"reason"`
	Expires     string    `json:"expires"`
	ConfirmWide bool      `json:"confirm_wide"`
}

// banAdded is POST /bans's answer.
type banAdded struct {
	Ban      bans.Ban           `json:"ban"`
	Replaced bool               `json:"replaced"` // a ban with this kind and value was there, now replaced
	Kicked   []relay.KickResult `json:"kicked"`   // the players online it matched
}

// handleBans serves the ban list (docs/admin-api.md): GET /bans, POST /bans, DELETE
// /bans/{kind}/{value}. adminGuard checks every request first (the token for all three).
func handleBans(mux *http.ServeMux, store *banStore, kicker banKicker, audit adminAudit) {
	mux.HandleFunc("GET /bans", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"bans": store.list.All(time.Now()), "file": store.filePath()})
	})
	mux.HandleFunc("POST /bans", func(w http.ResponseWriter, r *http.Request) {
		var req banRequest
		added, err := addBan(w, r, &req, store, kicker)
		ev := audit.line(r, "ban", err).Str("kind", string(req.Kind)).Str("value", shortValue(req.Value))
		if err != nil {
			ev.Msg("admin API: ban refused")
			replyError(w, err)
			return
		}
		if !added.Ban.Expires.IsZero() {
			ev.Time("expires", added.Ban.Expires)
		}
		ev.Str("reason", added.Ban.Reason).Bool("replaced", added.Replaced).Int("kicked", len(added.Kicked)).
			Msg("admin API: ban added")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, added)
	})
	mux.HandleFunc("DELETE /bans/{kind}/{value...}", func(w http.ResponseWriter, r *http.Request) {
		kind, value := bans.Kind(r.PathValue("kind")), r.PathValue("value")
		removed, err := removeBan(store, kind, value)
		ev := audit.line(r, "unban", err).Str("kind", string(kind)).Str("value", shortValue(value))
		if err != nil {
			ev.Msg("admin API: unban refused")
			replyError(w, err)
			return
		}
		ev.Msg("admin API: ban removed")
		writeJSON(w, map[string]bans.Ban{"removed": removed})
	})
}

// addBan reads the request into req, puts its ban on the list and kicks the players online it
// matches.
func addBan(w http.ResponseWriter, r *http.Request, req *banRequest, store *banStore, kicker banKicker) (banAdded, error) {
	if err := decodeBody(w, r, req); err != nil {
		return banAdded{}, err
	}
	return banAndKick(*req, store, kicker)
}

// banAndKick puts req's ban on the list and kicks the players online it matches.
func banAndKick(req banRequest, store *banStore, kicker banKicker) (banAdded, error) {
	b, err := req.ban(time.Now())
	if err != nil {
		return banAdded{}, err
	}
	replaced, err := store.add(b)
	if err != nil {
		return banAdded{}, err
	}
	return banAdded{Ban: b, Replaced: replaced, Kicked: kicker.KickBanned(b)}, nil
}

// ban checks the request as a ban added at now.
func (req banRequest) ban(now time.Time) (bans.Ban, error) {
	expires, err := bans.ParseExpires(req.Expires, now)
	if err != nil {
		return bans.Ban{}, err
	}
	e := bans.Entry{Kind: req.Kind, Value: req.Value, Reason: req.Reason, Expires: expires,
		Added: now.UTC().Format(time.RFC3339), ConfirmWide: req.ConfirmWide}
	return e.Ban(now)
}

func removeBan(store *banStore, kind bans.Kind, value string) (bans.Ban, error) {
	key, err := bans.Canonical(kind, value)
	if err != nil {
		return bans.Ban{}, err
	}
	removed, ok, err := store.remove(kind, key)
	switch {
	case err != nil:
		return bans.Ban{}, err
	case !ok:
		return bans.Ban{}, errNoSuchBan
	}
	return removed, nil
}

// shortValue is a value as an action's log line quotes it: its first 64 bytes, control
// characters as "?" (a refused value may hold any, and a console log is read on a terminal).
func shortValue(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

// filePath is the bans file now; "" for none.
func (s *banStore) filePath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path
}
