//go:build linux

package delaylink

import (
	"encoding/binary"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// end is the test's side of a device: a SOCK_SEQPACKET socket whose peer the link holds, so
// that a write here is a packet the namespace sends and a read one it receives.
type end struct{ f *os.File }

// devicePair is a device for the link and the test's end of it.
func devicePair(t *testing.T) (link int, test end) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[1]), "test end")
	t.Cleanup(func() { f.Close() })
	return fds[0], end{f}
}

func (e end) send(t *testing.T, p []byte) {
	t.Helper()
	if _, err := e.f.Write(p); err != nil {
		t.Fatal(err)
	}
}

// receive is the next packet and when it came.
func (e end) receive(t *testing.T) ([]byte, time.Time) {
	t.Helper()
	e.f.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, maxPacket)
	n, err := e.f.Read(b)
	if err != nil {
		t.Fatalf("no packet: %v", err)
	}
	return b[:n], time.Now()
}

// slack is how late a packet may arrive in these tests, generously: the pumps run real-time as
// root, but may not elsewhere on a loaded 2-core machine. Early is never allowed.
const slack = 50 * time.Millisecond

func startLink(t *testing.T, oneWay time.Duration) (a, b end, l *Link) {
	t.Helper()
	la, a := devicePair(t)
	lb, b := devicePair(t)
	l, err := Start(la, lb, oneWay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return a, b, l
}

// TestEachDirectionHoldsPacketsForTheDelay sends packets each way. A loaded machine only ever
// delays a packet's receipt, so no packet may come early, and the fastest of a few per
// direction must come within slack of the delay.
func TestEachDirectionHoldsPacketsForTheDelay(t *testing.T) {
	const oneWay = 30 * time.Millisecond
	a, b, _ := startLink(t, oneWay)
	for _, dir := range []struct {
		name     string
		from, to end
	}{{"a to b", a, b}, {"b to a", b, a}} {
		fastest := time.Hour
		for try := range packetTries {
			d := timePacket(t, dir.from, dir.to, dir.name)
			t.Logf("%s, try %d: packet took %v", dir.name, try+1, d)
			if d < oneWay {
				t.Fatalf("%s: packet took %v, want %v at least", dir.name, d, oneWay)
			}
			fastest = min(fastest, d)
		}
		if fastest > oneWay+slack {
			t.Errorf("%s: fastest of %d packets took %v, want %v (at most %v late)", dir.name, packetTries, fastest, oneWay, slack)
		}
	}
}

// packetTries is how many packets TestEachDirectionHoldsPacketsForTheDelay times each way: a
// scheduler stall of a few hundred ms on a loaded 2-core machine hits one, not all of them.
const packetTries = 5

// timePacket sends one packet of payload from one end and returns how long it took to be
// received at the other.
func timePacket(t *testing.T, from, to end, payload string) time.Duration {
	t.Helper()
	sent := time.Now()
	from.send(t, []byte(payload))
	got, at := to.receive(t)
	if string(got) != payload {
		t.Fatalf("%s: got %q", payload, got)
	}
	return at.Sub(sent)
}

func TestOrderIsKeptWhenTheDelayShrinks(t *testing.T) {
	a, b, l := startLink(t, 40*time.Millisecond)
	for i := range 50 {
		a.send(t, []byte{byte(i)})
	}
	time.Sleep(5 * time.Millisecond) // the first 50 are read with 40 ms
	l.SetOneWay(0)
	for i := 50; i < 100; i++ {
		a.send(t, []byte{byte(i)})
	}
	for i := range 100 {
		if got, _ := b.receive(t); got[0] != byte(i) {
			t.Fatalf("packet %d arrived as number %d", got[0], i)
		}
	}
}

func TestCountersCountIPAndTCPPayloadBytes(t *testing.T) {
	a, b, l := startLink(t, 0)
	seg := ipv4TCP(100)
	a.send(t, seg)
	a.send(t, []byte{0x45, 0, 0}) // too short to be a TCP segment: counted as bytes only
	b.receive(t)
	b.receive(t)
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
