package delaylink

import (
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// Packet buffers: a TUN device's MTU is 1500 by default, so a buffer of 2 KiB takes any of its
// packets; a larger one (up to IPv4's 64 KiB) gets a buffer of its own.
const (
	pooledPacket = 2 << 10
	maxPacket    = 64 << 10
)

// held is a packet and when it is due at the far end.
type held struct {
	due    time.Time
	packet []byte
}

// direction is one way of the link: read from in, hold, write to out. Only its pump's thread
// touches queue and free; the counts are read from anywhere.
type direction struct {
	in, out, wake int
	oneWay        func() time.Duration
	queue         []held
	free          [][]byte
	scratch       []byte

	packets, bytes, payload, dropped atomic.Uint64
	late                             stats.Histogram
}

func newDirection(in, out, wake int, oneWay func() time.Duration) *direction {
	return &direction{in: in, out: out, wake: wake, oneWay: oneWay, scratch: make([]byte, maxPacket)}
}

// hold queues a packet just read, or drops it when the queue is full.
func (d *direction) hold(p []byte, now time.Time) {
	if len(d.queue) >= queued {
		d.dropped.Add(1)
		return
	}
	var b []byte
	if n := len(d.free); n > 0 && len(p) <= pooledPacket {
		b, d.free = d.free[n-1][:0], d.free[:n-1]
	} else if len(p) <= pooledPacket {
		b = make([]byte, 0, pooledPacket)
	}
	d.queue = append(d.queue, held{due: now.Add(d.oneWay()), packet: append(b, p...)})
}

// next is how long until the first held packet is due (0: due now), or false with none held.
func (d *direction) next(now time.Time) (time.Duration, bool) {
	if len(d.queue) == 0 {
		return 0, false
	}
	return max(d.queue[0].due.Sub(now), 0), true
}

// release takes the first held packet off the queue once it was written (sent true) or
// refused, and counts it.
func (d *direction) release(sent bool, at time.Time) {
	h := d.queue[0]
	d.queue[0] = held{}
	d.queue = d.queue[1:]
	if len(d.queue) == 0 {
		d.queue = d.queue[:0:0] // let the backing array go once the burst is over
	}
	if sent {
		d.late.Record(at.Sub(h.due))
		d.packets.Add(1)
		d.bytes.Add(uint64(len(h.packet)))
		d.payload.Add(uint64(tcpPayload(h.packet)))
	} else {
		d.dropped.Add(1)
	}
	if cap(h.packet) == pooledPacket {
		d.free = append(d.free, h.packet)
	}
}

func (d *direction) counters() Counters {
	return Counters{
		Packets: d.packets.Load(), Bytes: d.bytes.Load(), TCPPayload: d.payload.Load(), Dropped: d.dropped.Load(),
		LateP50: d.late.Percentile(50), LateP99: d.late.Percentile(99), LateMax: d.late.Percentile(100),
	}
}
