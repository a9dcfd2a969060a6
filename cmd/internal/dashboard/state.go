package dashboard

import (
	"encoding/json"
	"net/http"

	"github.com/moonbridge/moonbridge/relay"
)

// state is GET /dashboard/state: counts only, so that it may be read without the token.
type state struct {
	Ready          bool         `json:"ready"`
	Reason         string       `json:"reason"` // why not ready; "" when ready
	TokenSet       bool         `json:"token_set"`
	Sessions       int          `json:"sessions"`
	Players        int          `json:"players"`
	Relayed        relayed      `json:"relayed"`
	AttackMode     attackMode   `json:"attack_mode"`
	Blocked        int          `json:"blocked"`
	MemoryRefusing bool         `json:"memory_refusing"`
	LoginMeter     loginMeter   `json:"login_meter"`
	Routes         []routeState `json:"routes"`
	History        historyState `json:"history"`
}

type relayed struct {
	Up   int64 `json:"up"`
	Down int64 `json:"down"`
}

type attackMode struct {
	On          bool  `json:"on"`
	Activations int64 `json:"activations"`
}

type loginMeter struct {
	Rate          float64 `json:"rate"` // requests a second; 0: unmetered
	Queue         int     `json:"queue"`
	Waiting       int     `json:"waiting"`
	Sent          float64 `json:"sent"`
	Refused       float64 `json:"refused"`
	Strict        bool    `json:"strict"`
	PausedSeconds float64 `json:"paused_seconds"`
}

type routeState struct {
	Label      string         `json:"label"`
	Hosts      []string       `json:"hosts"`
	Paths      []string       `json:"paths"`
	Players    int            `json:"players"`
	MaxPlayers int            `json:"max_players"`
	Backends   []backendState `json:"backends"`
}

type backendState struct {
	Addr     string `json:"addr"`
	Checked  bool   `json:"checked"`
	Up       bool   `json:"up"`
	Sessions int64  `json:"sessions"`
}

type historyState struct {
	EverySeconds float64 `json:"every_seconds"`
	Points       []point `json:"points"`
}

// point is a Sample as the page draws it: t in Unix seconds.
type point struct {
	T       int64   `json:"t"`
	Players int     `json:"players"`
	UpBps   float64 `json:"up_bps"`
	DownBps float64 `json:"down_bps"`
}

func (d *Dashboard) serveState(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(d.state())
}

func (d *Dashboard) state() state {
	o, h := d.src.Overview(), d.src.Health()
	m := o.LoginMeter
	st := state{Ready: h.Ready, Reason: h.Reason, TokenSet: d.tokenSet, Sessions: o.Sessions, Players: o.Players,
		Relayed:    relayed{Up: o.RelayedUp, Down: o.RelayedDown},
		AttackMode: attackMode{On: o.AttackMode, Activations: o.AttackActivations}, Blocked: o.Blocked,
		MemoryRefusing: o.MemoryRefusing,
		LoginMeter: loginMeter{Rate: m.Settings.Rate, Queue: m.Settings.Queue, Waiting: m.Waiting, Sent: m.Sent,
			Refused: m.Refused, Strict: m.Strict, PausedSeconds: m.PausedFor.Seconds()},
		Routes:  make([]routeState, 0, len(o.Routes)),
		History: historyState{EverySeconds: d.every, Points: []point{}},
	}
	for _, r := range o.Routes {
		st.Routes = append(st.Routes, routeOf(r))
	}
	for _, s := range d.sampler.samples.All() {
		st.History.Points = append(st.History.Points, point{T: s.At.Unix(), Players: s.Players, UpBps: s.UpPerSecond, DownBps: s.DownPerSecond})
	}
	return st
}

func routeOf(r relay.RouteOverview) routeState {
	rs := routeState{Label: r.Label, Hosts: nonNil(r.Hosts), Paths: nonNil(r.Paths), Players: r.Players, MaxPlayers: r.MaxPlayers,
		Backends: make([]backendState, 0, len(r.Backends))}
	for _, b := range r.Backends {
		rs.Backends = append(rs.Backends, backendState{Addr: b.Addr, Checked: b.Checked, Up: b.Up, Sessions: b.Sessions})
	}
	return rs
}

// nonNil is s, or an empty list for none, so that the page reads [] and not null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
