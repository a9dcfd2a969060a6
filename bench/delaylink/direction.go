package delaylink

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/bench/stats"
)

// Packet buffers: a TUN device's MTU is 1500 by default, so a pooled buffer of 2 KiB takes
// every packet of one; a larger packet (up to IPv4's 64 KiB) is read into the scratch buffer
// and copied out.
const (
	pooledPacket = 2 << 10
	maxPacket    = 64 << 10
)

// held is a packet and when it is due at the far end.
type held struct {
	due    time.Time
	packet []byte
}

// direction is one way of the link: read from src, hold, write to dst.
type direction struct {
	src, dst Device
	oneWay   func() time.Duration
	queue    chan held
	done     chan struct{}
	once     sync.Once
	pool     sync.Pool // *[]byte of pooledPacket

	mu      sync.Mutex
	packets uint64
	bytes   uint64
	payload uint64
	dropped uint64
	late    stats.Histogram
}

func newDirection(src, dst Device, oneWay func() time.Duration) *direction {
	d := &direction{src: src, dst: dst, oneWay: oneWay, queue: make(chan held, queued), done: make(chan struct{})}
	d.pool.New = func() any { b := make([]byte, pooledPacket); return &b }
	return d
}

func (d *direction) stop() { d.once.Do(func() { close(d.done) }) }

// read takes packets from src and queues each with its due time.
func (d *direction) read() error {
	defer d.stop()
	scratch := make([]byte, maxPacket)
	for {
		n, err := d.src.Read(scratch)
		if errors.Is(err, os.ErrClosed) {
			return nil
		} else if err != nil {
			return fmt.Errorf("delaylink: read: %w", err)
		}
		h := held{due: time.Now().Add(d.oneWay()), packet: d.copyOf(scratch[:n])}
		select {
		case d.queue <- h:
		case <-d.done:
			return nil
		}
	}
}

// copyOf is p in a pooled buffer when it fits one.
func (d *direction) copyOf(p []byte) []byte {
	if len(p) > pooledPacket {
		return append([]byte(nil), p...)
	}
	b := d.pool.Get().(*[]byte)
	return append((*b)[:0], p...)
}

// write passes each queued packet on once it is due, in order.
func (d *direction) write() error {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		var h held
		select {
		case h = <-d.queue:
		case <-d.done:
			return nil
		}
		if wait := time.Until(h.due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-d.done:
				return nil
			}
		}
		late := time.Since(h.due)
		if _, err := d.dst.Write(h.packet); errors.Is(err, os.ErrClosed) {
			return nil
		} else if err != nil { // the far end refused this packet (its device down): dropped, as a wire would
			d.drop()
		} else {
			d.count(h.packet, late)
		}
		if cap(h.packet) == pooledPacket {
			d.pool.Put(&h.packet)
		}
	}
}

func (d *direction) count(packet []byte, late time.Duration) {
	d.late.Record(late)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.packets++
	d.bytes += uint64(len(packet))
	d.payload += uint64(tcpPayload(packet))
}

func (d *direction) drop() {
	d.mu.Lock()
	d.dropped++
	d.mu.Unlock()
}

func (d *direction) counters() Counters {
	d.mu.Lock()
	c := Counters{Packets: d.packets, Bytes: d.bytes, TCPPayload: d.payload, Dropped: d.dropped}
	d.mu.Unlock()
	c.LateP50, c.LateP99, c.LateMax = d.late.Percentile(50), d.late.Percentile(99), d.late.Percentile(100)
	return c
}
