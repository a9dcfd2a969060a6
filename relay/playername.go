package relay

import "github.com/moonbridge/moonbridge/relay/mc"

// playerName finds the player's name in the bytes a login sends after its handshake (Login
// Start), for the session's end line. It looks at what was buffered before the dial and then at
// what the up pump relays, never waits for the bytes, and stops after a name's worth of them.
// Only the up pump feeds it once the session relays, so it needs no lock.
type playerName struct {
	want bool // the handshake asked for login, and the name is not found yet
	buf  []byte
	name string
}

// maxLoginStartHead is the most of Login Start the name can need: a length, the packet id, the
// name's length and the name.
const maxLoginStartHead = 3 + 1 + 1 + mc.MaxPlayerNameBytes

func (p *playerName) feed(b []byte) {
	if !p.want || len(b) == 0 {
		return
	}
	p.buf = append(p.buf, b[:min(len(b), maxLoginStartHead-len(p.buf))]...)
	name, _, err := mc.ParsePlayerName(p.buf)
	if err == mc.ErrNeedMore && len(p.buf) < maxLoginStartHead {
		return
	}
	p.want, p.buf = false, nil
	if err == nil {
		p.name = name
	}
}
