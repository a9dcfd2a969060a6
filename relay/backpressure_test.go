package relay

import (
	"bytes"
	"crypto/rand"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/mc"
)

// socketBufferMax reads the largest TCP buffer the kernel grows a socket to (the third field).
func socketBufferMax(t *testing.T, file string) int64 {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Skipf("cannot read %s: %v", file, err)
	}
	fields := strings.Fields(string(raw))
	n, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBackendThatStopsReading checks that a session buffers at most one batch (64 KiB) in the
// proxy beyond the kernel's socket buffers while its backend does not read (on either data
// path: a pump blocked in its write, or a loop's held buffer), and that it
// recovers byte-exact when the backend reads again. Over ws the keepalive's dead-peer check runs
// at 1 s and the stall lasts longer: a client the relay is not reading from is not dead. (At
// 0.4 s, a test process starved of CPU under -race beside other work, its writer unscheduled,
// was once taken for dead while the relay read it again after the stall.)
// It runs beside the package's other parallel tests: most of its time is spent waiting.
func TestBackendThatStopsReading(t *testing.T) {
	t.Parallel()
	eachLoopTransport(t, testBackendThatStopsReading)
}

func testBackendThatStopsReading(t *testing.T, protocol Protocol, provider string) {
	wmem := socketBufferMax(t, "/proc/sys/net/ipv4/tcp_wmem")
	rmem := socketBufferMax(t, "/proc/sys/net/ipv4/tcp_rmem")
	// client send buffer, proxy receive buffer, proxy send buffer, backend receive buffer,
	// plus the one batch the upstream pump may hold.
	bound := 2*wmem + 2*rmem + batchSize
	backend := startBackend(t, false)
	backend.pause = make(chan struct{})
	const keepalive = 500 * time.Millisecond // dead after 2 intervals: 1 s
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.WebSocket.Conn.PingInterval, c.WebSocket.Conn.DeadPeerIntervals = keepalive, 2
		c.TLS = tlsServer(t, provider)
	}, protocol)
	payload := make([]byte, bound+2<<20) // made before dialing: over ws, filling it takes longer
	rand.Read(payload)                   // than the 1 s the dead-peer check allows a silent client
	conn := dialClient(t, protocol, addr)
	defer conn.Close()
	var written atomic.Int64
	writeDone := make(chan error, 1)
	go func() {
		if _, err := conn.Write(handshakeFrame("h", mc.NextLogin)); err != nil {
			writeDone <- err
			return
		}
		for off := 0; off < len(payload); off += 16 << 10 {
			n, err := conn.Write(payload[off:min(off+16<<10, len(payload))])
			written.Add(int64(n))
			if err != nil {
				writeDone <- err
				return
			}
		}
		writeDone <- nil
	}()
	stalledAt := waitForStall(&written, 300*time.Millisecond, 60*time.Second)
	if stalledAt > bound {
		t.Errorf("the client could write %d bytes into a stalled session; bound %d", stalledAt, bound)
	}
	if stalledAt >= int64(len(payload)) {
		t.Fatalf("no backpressure: all %d bytes were accepted", stalledAt)
	}
	// The proxy's part of the bound: one batch, the one waiting for the backend to read.
	if held, _ := metricValue(t, srv, "moonbridge_relay_buffers", nil); held > 1 {
		t.Errorf("%v relay buffers held in a stalled session, want at most 1", held)
	}
	time.Sleep(5 * keepalive) // stalled past the dead-peer time
	close(backend.pause)
	got := make([]byte, len(payload))
	conn.SetReadDeadline(time.Now().Add(120 * time.Second))
	if _, err := io.ReadFull(conn, got); err != nil {
		t.Fatalf("after the backend resumed: %v", err)
	}
	if err := <-writeDone; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatal("the echo after recovery differs")
	}
}

// waitForStall returns the counter's value once it has not moved for quiet.
func waitForStall(counter *atomic.Int64, quiet, limit time.Duration) int64 {
	deadline := time.Now().Add(limit)
	last, since := counter.Load(), time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if now := counter.Load(); now != last {
			last, since = now, time.Now()
		} else if time.Since(since) >= quiet {
			break
		}
	}
	return last
}
