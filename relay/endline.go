package relay

import (
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/mc"
)

// endLine is what a session's one log line says about how the session started: kept as plain
// fields while the session runs and written into the line only when it ends. A zerolog event
// (or a logger with the session's fields) built at the start would hold two 500-byte buffers
// for the whole session, most of what an idle player costs on the event loops.
type endLine struct {
	host     string
	next     mc.NextState
	greeted  bool   // a handshake was read: host and next are known
	answered string // who answered instead of a backend: "fallback", "limit", ...
	backend  string
	relayed  bool // the session reached a backend: the line has its bytes
	// byCookie: host is the one a transfer login's cookie named, which routed it
	// (transferroute.go), not its handshake's.
	byCookie bool
}

// hello keeps what the handshake said.
func (l *endLine) hello(hs mc.Handshake) {
	l.host, l.next, l.greeted = hs.Host, hs.NextState, true
}

// write adds the start's fields to the end line e.
func (l *endLine) write(e *zerolog.Event) {
	if l.greeted {
		e.Str("host", l.host).Stringer("next", l.next)
	}
	if l.answered != "" {
		e.Str("answered", l.answered)
	}
	if l.backend != "" {
		e.Str("backend", l.backend)
	}
	if l.byCookie {
		e.Bool("routed_by_cookie", true)
	}
}
