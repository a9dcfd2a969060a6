package traffic

import (
	"hash/fnv"
	"time"
)

// Event is one write of paced traffic: its bytes and when it is due, counted from the start of
// the schedule.
type Event struct {
	At      time.Duration
	Bytes   []byte // appended to the dst given to Next
	Probe   bool   // a keepalive whose answer times the round trip
	ProbeID int32
}

// Schedule yields one side's paced writes of one session, in order of their due time.
type Schedule interface {
	Next(dst []byte) Event
}

// stream is a write repeated every period, first at phase: the n-th write is build(dst, n).
type stream struct {
	next, every time.Duration
	seq         uint64
	probe       bool
	build       func(dst []byte, seq uint64) []byte
}

// merged interleaves streams by due time; ties go to the earlier stream.
type merged []stream

func (m merged) Next(dst []byte) Event {
	i := 0
	for j := range m {
		if m[j].next < m[i].next {
			i = j
		}
	}
	s := &m[i]
	ev := Event{At: s.next, Bytes: s.build(dst, s.seq), Probe: s.probe, ProbeID: int32(s.seq)}
	s.seq++
	s.next += s.every
	return ev
}

// phase spreads sessions over a period: a fixed offset below every from the player's name
// and a salt, so that thousands of players do not write in the same instant, and both ends
// compute the same offsets.
func phase(name, salt string, every time.Duration) time.Duration {
	return time.Duration(nameHash(name, salt) % uint64(every))
}

func nameHash(name, salt string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(salt))
	h.Write([]byte(name))
	return h.Sum64()
}
