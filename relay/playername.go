package relay

import (
	"sync/atomic"

	"github.com/moonbridge/moonbridge/mc"
)

// playerName finds the player's name and UUID in the bytes a login sends after its handshake
// (Login Start), for the session's end line and login events. It looks at what was buffered
// before the dial and then at what the up pump relays, never waits for the bytes, and stops
// after a Login Start head's worth of them. Only the up pump (or the session's event loop)
// feeds it once the session relays, so it needs no lock.
type playerName struct {
	want     bool  // the handshake asked for login, and the name is not found yet
	protocol int32 // the handshake's: whether and where Login Start has a UUID
	buf      []byte
	name     string
	uuid     string // "" when the version sends none
	found    func() // runs once when the name is found after whenFound set it; on the data path
	// known is name and uuid for readers off the data path (a drain's transfer cookie, the
	// sessions API): set with them.
	known atomic.Pointer[knownPlayer]
}

type knownPlayer struct {
	name, uuid string
	online     bool
}

// setName records the player's name and UUID, for the data path and for known; online: the
// session server vouched for them (else the client's Login Start says them).
func (p *playerName) setName(name, uuid string, online bool) {
	p.name, p.uuid = name, uuid
	p.known.Store(&knownPlayer{name: name, uuid: uuid, online: online})
}

// knownName is the name as far as it is known now, from any goroutine; "" while not known.
func (p *playerName) knownName() string {
	return p.knownPlayer().name
}

// knownPlayer is the player as far as it is known now, from any goroutine.
func (p *playerName) knownPlayer() knownPlayer {
	if k := p.known.Load(); k != nil {
		return *k
	}
	return knownPlayer{}
}

func (p *playerName) feed(b []byte) {
	if !p.want || len(b) == 0 {
		return
	}
	p.buf = append(p.buf, b[:min(len(b), mc.MaxLoginStartHead-len(p.buf))]...)
	ls, err := mc.ParseLoginStart(p.buf, p.protocol)
	if err == mc.ErrNeedMore && len(p.buf) < mc.MaxLoginStartHead {
		return
	}
	p.want, p.buf = false, nil
	if err != nil {
		return
	}
	uuid := ""
	if ls.HasUUID {
		uuid = mc.UUIDString(ls.UUID)
	}
	p.setName(ls.Name, uuid, false)
	if p.found != nil {
		p.found()
	}
}

// whenFound runs found once the name is known: now, or when feed finds it. It is called before
// the session relays, so before any feed from the data path.
func (p *playerName) whenFound(found func()) {
	if p.name != "" {
		found()
		return
	}
	p.found = found
}
