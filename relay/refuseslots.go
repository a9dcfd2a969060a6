package relay

import (
	"container/list"
	"net/netip"
	"sync"
	"time"
)

// refusalSlots bound what answering refused clients holds, in two steps, so that a flood's
// refused connections cannot silence the refusals of others:
//
//   - waiting for the first bytes: at most maxRefusalWaits refused connections wait (each for
//     at most the answer's deadline); when one more comes, the one that has waited longest is
//     let go unanswered. A client sends its first bytes right behind the packet that completes
//     the connection, so they arrive at once, while a flood's silent connections each wait
//     maxRefusalWaits divided by their rate before they are let go.
//   - answering: once its first bytes are in, a client is answered within one of
//     maxRefusalAnswers slots, at most refusalSlotsPerNetwork of them per client network, so
//     one network's connections that start and stall keep the others' answers free. With no
//     slot free, the client is only closed.
//
// The zero value is ready.
type refusalSlots struct {
	mu      sync.Mutex
	waiting list.List // of *clientConn, oldest first
	total   int
	perNet  map[netip.Prefix]int
}

const (
	maxRefusalWaits        = 256
	refusalSlotsPerNetwork = maxRefusalAnswers / 4
)

// awaitFirstBytes waits until conn has sent its first bytes, within its deadline, and says
// whether it has; false also when conn waited longest as maxRefusalWaits others came.
func (r *refusalSlots) awaitFirstBytes(conn *clientConn) bool {
	r.mu.Lock()
	if r.waiting.Len() >= maxRefusalWaits {
		oldest := r.waiting.Remove(r.waiting.Front()).(*clientConn)
		oldest.SetReadDeadline(time.Unix(1, 0)) // its Peek ends now
	}
	waiter := r.waiting.PushBack(conn)
	r.mu.Unlock()
	_, err := conn.reader.Peek(1)
	r.mu.Lock()
	r.waiting.Remove(waiter) // a no-op when it was let go
	r.mu.Unlock()
	return err == nil
}

// answerSlot takes one of the answer slots for a client of network, or says there is none.
func (r *refusalSlots) answerSlot(network netip.Prefix) (release func(), ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.total >= maxRefusalAnswers || r.perNet[network] >= refusalSlotsPerNetwork {
		return nil, false
	}
	if r.perNet == nil {
		r.perNet = map[netip.Prefix]int{}
	}
	r.total++
	r.perNet[network]++
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.total--
		if r.perNet[network]--; r.perNet[network] <= 0 {
			delete(r.perNet, network)
		}
	}, true
}
