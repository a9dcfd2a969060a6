package delaylink

import (
	"encoding/binary"
	"os"
	"sync"
	"testing"
	"time"
)

// memDevice is a Device in memory: Read returns what send queued (the namespace sending), Write
// hands the packet to got (the namespace receiving) with the time it arrived.
type memDevice struct {
	in     chan []byte
	got    chan arrival
	closed chan struct{}
	once   sync.Once
}

type arrival struct {
	at     time.Time
	packet []byte
}

func newMemDevice() *memDevice {
	return &memDevice{in: make(chan []byte, 1024), got: make(chan arrival, 1024), closed: make(chan struct{})}
}

func (m *memDevice) Read(p []byte) (int, error) {
	select {
	case b := <-m.in:
		return copy(p, b), nil
	case <-m.closed:
		return 0, os.ErrClosed
	}
}

func (m *memDevice) Write(p []byte) (int, error) {
	select {
	case m.got <- arrival{time.Now(), append([]byte(nil), p...)}:
		return len(p), nil
	case <-m.closed:
		return 0, os.ErrClosed
	}
}

func (m *memDevice) Close() error { m.once.Do(func() { close(m.closed) }); return nil }

// slack is how late a packet may arrive in these tests: a pump's wake-up on a loaded 2-core
// machine, generously. Early is never allowed.
const slack = 50 * time.Millisecond

func startMem(t *testing.T, oneWay time.Duration) (a, b *memDevice, l *Link) {
	t.Helper()
	a, b = newMemDevice(), newMemDevice()
	l = Start(a, b, oneWay)
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return a, b, l
}

func receive(t *testing.T, d *memDevice) arrival {
	t.Helper()
	select {
	case a := <-d.got:
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("no packet within 5 s")
		return arrival{}
	}
}

func TestEachDirectionHoldsPacketsForTheDelay(t *testing.T) {
	const oneWay = 30 * time.Millisecond
	a, b, _ := startMem(t, oneWay)
	for _, dir := range []struct {
		name     string
		from, to *memDevice
	}{{"a to b", a, b}, {"b to a", b, a}} {
		sent := time.Now()
		dir.from.in <- []byte(dir.name)
		got := receive(t, dir.to)
		if string(got.packet) != dir.name {
			t.Fatalf("%s: got %q", dir.name, got.packet)
		}
		if d := got.at.Sub(sent); d < oneWay || d > oneWay+slack {
			t.Errorf("%s: packet took %v, want %v (at most %v late)", dir.name, d, oneWay, slack)
		}
	}
}

func TestOrderIsKeptWhenTheDelayShrinks(t *testing.T) {
	a, b, l := startMem(t, 40*time.Millisecond)
	for i := range 50 {
		a.in <- []byte{byte(i)}
	}
	time.Sleep(5 * time.Millisecond) // the first 50 are read with 40 ms
	l.SetOneWay(0)
	for i := 50; i < 100; i++ {
		a.in <- []byte{byte(i)}
	}
	for i := range 100 {
		if got := receive(t, b); got.packet[0] != byte(i) {
			t.Fatalf("packet %d arrived as number %d", got.packet[0], i)
		}
	}
}

func TestCountersCountIPAndTCPPayloadBytes(t *testing.T) {
	a, b, l := startMem(t, 0)
	seg := ipv4TCP(100)
	a.in <- seg
	a.in <- []byte{0x45, 0, 0} // too short to be a TCP segment: counted as bytes only
	receive(t, b)
	receive(t, b)
	deadline := time.Now().Add(5 * time.Second)
	for l.AtoB().Packets < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // counted just after the write
	}
	c := l.AtoB()
	if c.Packets != 2 || c.Bytes != uint64(len(seg)+3) || c.TCPPayload != 100 {
		t.Errorf("a to b: %+v, want 2 packets, %d bytes, 100 of TCP payload", c, len(seg)+3)
	}
	if back := l.BtoA(); back.Packets != 0 {
		t.Errorf("b to a carried %d packets, want 0", back.Packets)
	}
	if d := c.Sub(c); d.Packets != 0 || d.Bytes != 0 || d.TCPPayload != 0 {
		t.Errorf("c.Sub(c) = %+v, want zero counts", d)
	}
}

func TestPayloadOfIPv6TCP(t *testing.T) {
	p := make([]byte, 40+32+7) // IPv6 header, TCP header with options (8 words), 7 bytes of data
	p[0] = 6 << 4
	binary.BigEndian.PutUint16(p[4:6], 32+7)
	p[6] = protoTCP
	p[40+12] = 8 << 4
	if n := tcpPayload(p); n != 7 {
		t.Errorf("tcpPayload = %d, want 7", n)
	}
	p[6] = 17 // UDP
	if n := tcpPayload(p); n != 0 {
		t.Errorf("tcpPayload of UDP = %d, want 0", n)
	}
}

// ipv4TCP is an IPv4 packet of a TCP segment with n bytes of data and a 20-byte header.
func ipv4TCP(n int) []byte {
	p := make([]byte, 20+20+n)
	p[0] = 0x45
	binary.BigEndian.PutUint16(p[2:4], uint16(len(p)))
	p[9] = protoTCP
	p[20+12] = 5 << 4
	return p
}
