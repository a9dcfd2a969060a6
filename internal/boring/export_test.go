//go:build boringssl && cgo

package boring

// Conns is conns for the external tests, which make certificates with gossl.
func (c *Ctx) Conns() int { return c.conns() }
