package boring

// TicketKeyLen is the size of one session ticket key: a name, an HMAC key and an AES key
// (MB_TICKET_KEY_LEN in mbtls.h; ctx.go checks they agree).
const TicketKeyLen = 48

// MaxTicketKeys is how many ticket keys a context accepts; the first issues new tickets.
const MaxTicketKeys = 4
