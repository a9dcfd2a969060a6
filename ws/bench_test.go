//go:build unix

package ws

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// The packet mix of the Java MoonBridge's client-codec record (2026-10-23,
// docs/design.md "Where this comes from"), from a fixed random seed:
// 88% 20-300 B, 11% 2-8 KiB, 1% 30-60 KiB packets, written in bursts of
// 1-24 packets.
const (
	encodePackets = 100000
	decodePackets = 40000
	loginBytes    = 2 << 20
	loginFrame    = 32 << 10
)

func packetSize(rng *rand.Rand) int {
	switch r := rng.IntN(100); {
	case r < 88:
		return 20 + rng.IntN(281)
	case r < 99:
		return 2048 + rng.IntN(6145)
	default:
		return 30<<10 + rng.IntN(30<<10+1)
	}
}

// workload returns the packets (slices of one random block) and the burst
// lengths.
func workload(n int) (packets [][]byte, bursts []int) {
	rng := rand.New(rand.NewPCG(2026, 1023))
	block := randomStream(9, 64<<10)
	for range n {
		packets = append(packets, block[:packetSize(rng)])
	}
	for left := n; left > 0; {
		k := min(left, 1+rng.IntN(24))
		bursts, left = append(bursts, k), left-k
	}
	return packets, bursts
}

// cpuTime is the process's user+system CPU time: producer, writer
// goroutine and GC all count.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// measure runs op b.N times and reports per-unit wall and CPU time and
// allocated bytes.
func measure(b *testing.B, units float64, unit string, op func()) {
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	a0, c0, t0 := totalAlloc(), cpuTime(), time.Now()
	for range b.N {
		op()
	}
	wall, cpu, alloc := time.Since(t0), cpuTime()-c0, totalAlloc()-a0
	b.StopTimer()
	n := units * float64(b.N)
	b.ReportMetric(float64(wall.Nanoseconds())/n, "ns/"+unit)
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/"+unit)
	b.ReportMetric(float64(alloc)/n, "B/"+unit)
}

// sinkConn stands in for the socket: it answers a client handshake, then
// counts socket writes and binary messages (frames with FIN) and drops
// the bytes. Every write must hold whole frames.
type sinkConn struct {
	loopConn
	request  []byte
	response []byte
	open     bool
	messages int
}

func (s *sinkConn) Write(p []byte) (int, error) {
	if !s.open {
		s.request = append(s.request, p...)
		if i := bytes.Index(s.request, []byte("\r\n\r\n")); i >= 0 {
			req, _ := http.ReadRequest(bufio.NewReader(bytes.NewReader(s.request)))
			s.response = []byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
				"Sec-WebSocket-Accept: " + acceptKey(req.Header.Get("Sec-WebSocket-Key")) + "\r\n\r\n")
			s.open = true
		}
		return len(p), nil
	}
	s.writes++
	for b := p; len(b) > 0; {
		h, n, err := ParseHeader(b)
		if err != nil || int64(len(b)-n) < h.Length {
			panic("sink: a write does not hold whole frames")
		}
		if h.Fin && h.OpCode == OpBinary || h.Fin && h.OpCode == OpContinuation {
			s.messages++
		}
		b = b[n+int(h.Length):]
	}
	return len(p), nil
}

func (s *sinkConn) Read(p []byte) (int, error) {
	if len(s.response) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.response)
	s.response = s.response[n:]
	return n, nil
}

// runBursts plays the producer on another goroutine: a burst's packets one
// write each, then wait for the burst to be written.
func runBursts(packets [][]byte, bursts []int, write func([]byte), flush func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		i := 0
		for _, k := range bursts {
			for _, p := range packets[i : i+k] {
				write(p)
			}
			i += k
			flush()
		}
	}()
	<-done
}

func reportMessages(b *testing.B, sink *sinkConn) {
	pk := float64(encodePackets * b.N)
	b.ReportMetric(float64(sink.messages)*1000/pk, "msgs/1000pkt")
	b.ReportMetric(float64(sink.writes)*1000/pk, "writes/1000pkt")
}

// BenchmarkEncode/base: gorilla/websocket, one message per packet, write
// buffer large enough that every message is one frame and one write.
// BenchmarkEncode/candidate: ws.Encoder.
func BenchmarkEncode(b *testing.B) {
	packets, bursts := workload(encodePackets)
	b.Run("base", func(b *testing.B) {
		sink := &sinkConn{}
		d := websocket.Dialer{
			NetDialContext:  func(context.Context, string, string) (net.Conn, error) { return sink, nil },
			WriteBufferSize: MaxHeaderLen + MaxBatchSize,
		}
		gc, _, err := d.Dial("ws://bench.invalid/mc", nil)
		if err != nil {
			b.Fatal(err)
		}
		write := func(p []byte) {
			if err := gc.WriteMessage(websocket.BinaryMessage, p); err != nil {
				panic(err)
			}
		}
		measure(b, encodePackets, "pkt", func() { runBursts(packets, bursts, write, func() {}) })
		reportMessages(b, sink)
	})
	b.Run("candidate", func(b *testing.B) {
		sink := &sinkConn{open: true}
		e := NewEncoder(NewConn(sink, RoleClient, noKeepalive()))
		defer e.Close()
		write := func(p []byte) { _, _ = e.Write(p) }
		flush := func() {
			if err := e.Flush(); err != nil {
				panic(err)
			}
		}
		measure(b, encodePackets, "pkt", func() { runBursts(packets, bursts, write, flush) })
		reportMessages(b, sink)
	})
}

// decodeStream is the proxy's view of a session: a login burst in 32 KiB
// Minecraft frames, then packets, framed with a VarInt length, in masked
// messages of 1-32 frames capped at 64 KiB. It returns the wire bytes and
// the payload length of one pass.
func decodeStream() (wire []byte, payload int) {
	rng := rand.New(rand.NewPCG(48, 1460))
	block := randomStream(10, 64<<10)
	var mc [][]byte
	for range loginBytes / loginFrame {
		mc = append(mc, mcFrame(block[:loginFrame-3]))
	}
	for range decodePackets {
		mc = append(mc, mcFrame(block[:packetSize(rng)]))
	}
	for len(mc) > 0 {
		var msg []byte
		for k := 1 + rng.IntN(32); k > 0 && len(mc) > 0 && len(msg)+len(mc[0]) <= MaxBatchSize; k-- {
			msg, mc = append(msg, mc[0]...), mc[1:]
		}
		wire = append(wire, frame(true, OpBinary, msg, rng.Uint32()|1)...)
		payload += len(msg)
	}
	return wire, payload
}

func mcFrame(body []byte) []byte {
	return append(binaryAppendUvarint(nil, uint64(len(body))), body...)
}

func binaryAppendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b, v = append(b, byte(v)|0x80), v>>7
	}
	return append(b, byte(v))
}

// BenchmarkDecode reads the stream delivered in 1460-byte socket reads:
// base = gorilla's NextReader + Read into a reused buffer; candidate =
// ws.Conn.Read.
func BenchmarkDecode(b *testing.B) {
	wire, payload := decodeStream()
	buf := make([]byte, 64<<10)
	b.Run("base", func(b *testing.B) {
		gc := gorillaServerConn(b, &loopConn{data: wire, chunk: 1460})
		measure(b, float64(payload), "byte", func() {
			for got := 0; got < payload; {
				_, r, err := gc.NextReader()
				if err != nil {
					b.Fatal(err)
				}
				for {
					n, err := r.Read(buf)
					got += n
					if err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	})
	b.Run("candidate", func(b *testing.B) {
		c := NewConn(&loopConn{data: wire, chunk: 1460}, RoleServer, noKeepalive())
		measure(b, float64(payload), "byte", func() {
			for got := 0; got < payload; {
				n, err := c.Read(buf)
				if err != nil {
					b.Fatal(err)
				}
				got += n
			}
		})
	})
}

// gorillaServerConn upgrades a fake request over nc with gorilla.
func gorillaServerConn(b *testing.B, nc net.Conn) *websocket.Conn {
	req := httpRequest(upgradeReq("/mc"))
	rec := &hijackRecorder{header: http.Header{}, conn: nc}
	gc, err := (&websocket.Upgrader{}).Upgrade(rec, req, nil)
	if err != nil {
		b.Fatal(err)
	}
	return gc
}

func httpRequest(raw string) *http.Request {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader([]byte(raw))))
	if err != nil {
		panic(err)
	}
	return req
}
