package gossl

import (
	"crypto/rand"
	"sync"
	"time"
)

// ticketKeyLen is the size of one session ticket key (the shim's MB_TICKET_KEY_LEN: the
// BoringSSL provider only compiles when they agree).
const ticketKeyLen = 48

// ticketKey is one session ticket key: BoringSSL splits it into a name, an HMAC key and an AES
// key; crypto/tls takes its first 32 bytes and derives its own.
type ticketKey = [ticketKeyLen]byte

// ticketKeys rotates session ticket keys for both providers: the newest issues tickets, the
// previous TicketKeysKept-1 still resume. Rotation is checked when a connection is wrapped, so
// no goroutine is needed and an idle server does no work.
type ticketKeys struct {
	mu    sync.Mutex
	every time.Duration
	next  time.Time
	keys  []ticketKey // newest first
}

func newTicketKeys(every time.Duration, now time.Time) *ticketKeys {
	t := &ticketKeys{every: every}
	t.rotate(now)
	return t
}

// due reports whether a rotation is due, and rotates if so.
func (t *ticketKeys) due(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Before(t.next) {
		return false
	}
	t.rotate(now)
	return true
}

func (t *ticketKeys) rotate(now time.Time) {
	var k ticketKey
	_, _ = rand.Read(k[:]) // crypto/rand.Read never fails on Go 1.24+
	t.keys = append([]ticketKey{k}, t.keys...)
	if len(t.keys) > TicketKeysKept {
		t.keys = t.keys[:TicketKeysKept]
	}
	t.next = now.Add(t.every)
}

// snapshot copies the keys, newest first.
func (t *ticketKeys) snapshot() []ticketKey {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]ticketKey(nil), t.keys...)
}
