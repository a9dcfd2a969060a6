package main

import (
	"net/http"
	"net/netip"

	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/bans"
)

// sessionSource is the relay's open sessions and what the admin API does with one.
type sessionSource interface {
	banKicker
	Sessions() []relay.SessionInfo
	Session(id string) (relay.SessionInfo, error)
	Kick(id, message string) (relay.KickResult, error)
	TransferSession(id, host string, port uint16) (relay.SessionTransfer, error)
}

// The bodies of the session actions.
type (
	kickRequest struct {
		Message string `json:"message"`
	}
	transferRequest struct {
		Host string `json:"host"`
		Port int    `json:"port"`
	}
	sessionBanRequest struct {
		Reason  string `json:"reason"`
		Expires string `json:"expires"`
	}
)

// handleSessions serves the open sessions (docs/admin-api.md): GET /sessions, and POST
// /sessions/{id}/kick, /transfer and /ban. adminGuard checks every request first (the token
// for all: the list names players and their addresses).
func handleSessions(mux *http.ServeMux, src sessionSource, store *banStore, audit adminAudit) {
	mux.HandleFunc("GET /sessions", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"sessions": src.Sessions()})
	})
	mux.HandleFunc("POST /sessions/{id}/kick", func(w http.ResponseWriter, r *http.Request) {
		var req kickRequest
		err := decodeBody(w, r, &req)
		var res relay.KickResult
		if err == nil {
			res, err = src.Kick(r.PathValue("id"), req.Message)
		}
		reply(w, audit.line(r, "kick", err).Str("session", shortValue(r.PathValue("id"))).
			Bool("disconnect_sent", res.DisconnectSent).Str("note", res.Note), "admin API: session kicked", res, err)
	})
	mux.HandleFunc("POST /sessions/{id}/transfer", func(w http.ResponseWriter, r *http.Request) {
		res, err := transferSession(w, r, src)
		reply(w, audit.line(r, "transfer", err).Str("session", shortValue(r.PathValue("id"))).
			Str("to", res.To).Bool("transfer_sent", res.TransferSent), "admin API: session transferred", res, err)
	})
	mux.HandleFunc("POST /sessions/{id}/ban", func(w http.ResponseWriter, r *http.Request) {
		res, err := banSession(w, r, src, store)
		reply(w, audit.line(r, "ban session", err).Str("session", shortValue(r.PathValue("id"))).
			Str("kind", string(res.Ban.Kind)).Str("value", res.Ban.Value).Int("kicked", len(res.Kicked)),
			"admin API: session's player banned", res, err)
	})
}

// reply logs the action's line (msg when done) and answers v, or err.
func reply(w http.ResponseWriter, line interface{ Msg(string) }, msg string, v any, err error) {
	if err != nil {
		line.Msg("admin API: action refused")
		replyError(w, err)
		return
	}
	line.Msg(msg)
	writeJSON(w, v)
}

func transferSession(w http.ResponseWriter, r *http.Request, src sessionSource) (relay.SessionTransfer, error) {
	var req transferRequest
	if err := decodeBody(w, r, &req); err != nil {
		return relay.SessionTransfer{}, err
	}
	if req.Port < 1 || req.Port > 65535 {
		return relay.SessionTransfer{}, &bans.InputError{Field: "port", Reason: "1 to 65535"}
	}
	return src.TransferSession(r.PathValue("id"), req.Host, uint16(req.Port))
}

// banSession bans the session's player, by the most lasting thing known of it (sessionBan), and
// kicks the players online the ban matches, this one first among them.
func banSession(w http.ResponseWriter, r *http.Request, src sessionSource, store *banStore) (banAdded, error) {
	var req sessionBanRequest
	if err := decodeBody(w, r, &req); err != nil {
		return banAdded{}, err
	}
	info, err := src.Session(r.PathValue("id"))
	if err != nil {
		return banAdded{}, err
	}
	kind, value := sessionBan(info)
	return banAndKick(banRequest{Kind: kind, Value: value, Reason: req.Reason, Expires: req.Expires}, store, src)
}

// sessionBan is what a session's ban names: the UUID when the session server vouched for it;
// else the name (which an online-mode backend behind a passed-through login checks, where the
// UUID of Login Start is only the client's word); else the client's address.
func sessionBan(info relay.SessionInfo) (bans.Kind, string) {
	switch {
	case info.Online && info.UUID != "":
		return bans.KindUUID, info.UUID
	case info.Player != "":
		return bans.KindName, info.Player
	}
	addr, err := netip.ParseAddrPort(info.Client)
	if err != nil {
		return bans.KindAddress, info.Client
	}
	return bans.KindAddress, addr.Addr().Unmap().String()
}
