// Package handover is the channel between a running moonbridge and the new binary it starts
// for an upgrade: a unix SOCK_SEQPACKET socketpair whose one end only the started process
// inherits, and a small checked message format on it.
//
// Every message is one packet:
//
//	magic "MBHO" (4 bytes) | version uint16 | kind uint8 | reserved 0 | length uint32 | body
//
// in big-endian order, with length equal to the bytes that follow and at most MaxBody. A packet
// that is shorter than the header, longer than the header and MaxBody, has another magic, a
// length that is not what arrived, a reserved byte that is not 0, descriptors on a kind that
// carries none, or comes from another process than the one expected, is an error: the reader
// closes any descriptors it carried and the upgrade is abandoned.
//
// The header and the kinds Hello, Ready and Failed are the same in every version, so two
// binaries of different versions can always hand over their listeners: each side's Hello says
// its version, and only when the two are equal may kinds of that version follow. Kinds of
// another version are refused.
//
// Kinds (Version 2; version 1 had the first three alone):
//
//	1 Hello    both ways, first: body is the sender's build version (UTF-8, at most 256 bytes)
//	2 Ready    child to parent: it serves on every listener handed over; empty body
//	3 Failed   child to parent: its start-up failed; body is the reason (UTF-8)
//	16 Session parent to child, after Ready: one established session, its two sockets by
//	           SCM_RIGHTS (the player's, then the backend's) and its state in the body, in a
//	           format of the relay's that has its own version (relay/movesession.go)
//	17 Taken   child to parent: it took the session sent last; empty body
//	18 Refused child to parent: it did not take it and the parent keeps it; body is why (UTF-8)
//
// The parent sends one Session and waits for its answer before the next, and closes its end
// after the last. The child runs a session only once its Taken went out, and the parent gives
// a session up only on Taken: on Refused, or when the Session could not be sent or the child
// ended without an answer, the session runs on in the parent; when the answer is anything else
// or does not come in time, neither side can know, so the parent lets go of its copies of the
// sockets and stops sending (a session is never run by both).
//
// The listening sockets themselves are not sent here: they are the child's inherited
// descriptors, named in its environment (cmd/moonbridge), so that they reach a child of any
// version.
package handover
