//go:build !linux

package ws

// WaitReadable returns at once on this platform: waiting for readability
// without a buffer is implemented for Linux only, so callers simply take
// their buffer before Read.
func (c *Conn) WaitReadable() error { return nil }
