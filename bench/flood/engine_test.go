package flood

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// testProxy stands in for the proxy on loopback: it serves each connection with serve and
// counts the /24s its peers came from and the hellos that did not parse as want says.
type testProxy struct {
	ln    net.Listener
	serve func(c net.Conn, r *bufio.Reader) error
	wg    sync.WaitGroup
	mu    sync.Mutex
	nets  map[[3]byte]bool
	bad   []error
}

func startTestProxy(t *testing.T, serve func(c net.Conn, r *bufio.Reader) error) *testProxy {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &testProxy{ln: ln, serve: serve, nets: map[[3]byte]bool{}}
	p.wg.Go(p.accept)
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *testProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		a := c.RemoteAddr().(*net.TCPAddr).AddrPort().Addr().As4()
		p.mu.Lock()
		p.nets[[3]byte{a[0], a[1], a[2]}] = true
		p.mu.Unlock()
		p.wg.Go(func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			if err := p.serve(c, bufio.NewReader(c)); err != nil {
				p.mu.Lock()
				p.bad = append(p.bad, err)
				p.mu.Unlock()
			}
		})
	}
}

func (p *testProxy) networks() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.nets)
}

func (p *testProxy) errors() []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bad
}

// expectHello reads a Minecraft hello to flood.test with next state want.
func expectHello(r *bufio.Reader, want mc.NextState) error {
	h, err := mc.ReadHello(r, 0)
	switch {
	case err != nil:
		return err
	case h.Handshake.Host != floodTestHost || h.Handshake.NextState != want:
		return errors.New("hello to " + h.Handshake.Host + ", next state " + h.Handshake.NextState.String())
	}
	return nil
}

// answerWS accepts the upgrade, then reads the first message (one masked frame, as the flood
// sends) and hands its payload on.
func answerWS(c net.Conn, r *bufio.Reader) (*bufio.Reader, error) {
	req, err := http.ReadRequest(r)
	if err != nil {
		return nil, err
	}
	if req.Header.Get("Upgrade") != "websocket" || req.URL.Path != "/mc" {
		return nil, errors.New("not an upgrade to /mc: " + req.URL.String())
	}
	io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	var head [6]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	if head[0] != 0x82 || head[1]&0x80 == 0 || head[1]&0x7f >= 126 {
		return nil, errors.New("not one masked binary frame")
	}
	payload := make([]byte, head[1]&0x7f)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, err
	}
	for i := range payload {
		payload[i] ^= head[2+i%4]
	}
	return bufio.NewReader(bytes.NewReader(payload)), nil
}

const floodTestHost = "flood.test"

func testFlood(class, transport, engine, target string) Config {
	return Config{Class: class, Transport: transport, Target: target, Rate: 400, Duration: 500 * time.Millisecond,
		MaxOpen: 100, Hold: 2 * time.Second, Sources: Sources{Networks: 16}, Host: floodTestHost,
		WSPath: "/mc", Engine: engine, EpollThreads: 2, Seed: 1}
}

// Both engines send the same classes over tcp and ws from the spread sources at the rate,
// and count the proxy's answers.
func TestEnginesSendAndCountAnswers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the epoll engine and the 127/8 sources are Linux's")
	}
	cases := []struct {
		class, transport string
		want             mc.NextState
	}{
		{ClassPing, TransportTCP, mc.NextStatus},
		{ClassOffline, TransportTCP, mc.NextLogin},
		{ClassPing, TransportWS, mc.NextStatus},
		{ClassOffline, TransportWS, mc.NextLogin},
	}
	for _, engine := range Engines {
		for _, tc := range cases {
			t.Run(engine+"/"+tc.class+"/"+tc.transport, func(t *testing.T) {
				ws := tc.transport == TransportWS
				p := startTestProxy(t, func(c net.Conn, r *bufio.Reader) (err error) {
					if ws {
						if r, err = answerWS(c, r); err != nil {
							return err
						}
					}
					if err := expectHello(r, tc.want); err != nil {
						return err
					}
					answer := []byte{'x'}
					if ws {
						answer = []byte{0x82, 1, 'x'}
					}
					c.Write(answer)
					io.Copy(io.Discard, c)
					return nil
				})
				// Room for every start at once: a loaded machine makes the starts late, and
				// this test counts what was sent and answered, not the rate (pacer_test does).
				cfg := testFlood(tc.class, tc.transport, engine, p.ln.Addr().String())
				cfg.MaxOpen = 200
				res, err := Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if res.Started != 200 || res.Answered != 200 {
					t.Errorf("started %d, answered %d; want 200 started and answered: %+v", res.Started, res.Answered, res)
				}
				if n := p.networks(); n != 16 {
					t.Errorf("the proxy saw %d source /24s, want 16", n)
				}
				if bad := p.errors(); len(bad) > 0 {
					t.Errorf("%d connections sent something else: %v", len(bad), bad[0])
				}
				if engine == EngineEpoll && res.FloodCores <= 0 {
					t.Errorf("the epoll engine's threads used no CPU: %+v", res)
				}
			})
		}
	}
}

// Closed by the proxy, held to the hold's end, refused: both engines count each the same way.
func TestEnginesCountClosesHoldsAndRefusals(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the epoll engine and the 127/8 sources are Linux's")
	}
	closing := startTestProxy(t, func(c net.Conn, r *bufio.Reader) error {
		_, err := r.ReadByte() // the malformed handshake's first byte, then close
		return err
	})
	holding := startTestProxy(t, func(c net.Conn, r *bufio.Reader) error {
		io.Copy(io.Discard, r) // until the flood closes
		return nil
	})
	refused := testutil.ClosedPort(t)
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) {
			cfg := testFlood(ClassMalformed, TransportTCP, engine, closing.ln.Addr().String())
			cfg.Rate, cfg.Duration = 200, 250*time.Millisecond
			if res, err := Run(context.Background(), cfg); err != nil || res.Closed != 50 {
				t.Errorf("malformed at a closing proxy: %d closed of %d, want 50 (err %v)", res.Closed, res.Started, err)
			}
			cfg.Class, cfg.Target, cfg.Hold = ClassIdle, holding.ln.Addr().String(), 300*time.Millisecond
			start := time.Now()
			res, err := Run(context.Background(), cfg)
			if err != nil || res.Held != 50 || time.Since(start) > 2*time.Second {
				t.Errorf("idle at a holding proxy: %d held of %d in %v, want 50 after the 300 ms hold (err %v)", res.Held, res.Started, time.Since(start), err)
			}
			cfg.Target = refused
			if res, err := Run(context.Background(), cfg); err != nil || res.ConnectFailed != 50 || res.FirstError == "" {
				t.Errorf("idle at a closed port: %d of %d failed (%q), want 50 and the first error (err %v)", res.ConnectFailed, res.Started, res.FirstError, err)
			}
		})
	}
}

func TestEpollEngineRefusesWhatItCannotSend(t *testing.T) {
	for _, cfg := range []Config{
		{Class: ClassOnline, Transport: TransportTCP},
		{Class: ClassPing, Transport: TransportWSS},
		{Class: ClassSlowTLS, Transport: TransportTCP},
	} {
		cfg.Engine, cfg.EpollThreads = EngineEpoll, 1
		if err := cfg.CheckEngine(); err == nil {
			t.Errorf("the epoll engine took %s over %s", cfg.Class, cfg.Transport)
		}
	}
	ok := Config{Class: ClassTLSHello, Transport: TransportWSS, Engine: EngineEpoll, EpollThreads: 1}
	if err := ok.CheckEngine(); err != nil {
		t.Errorf("tlshello over wss (raw bytes): %v", err)
	}
}

func TestHeadScanAcrossReads(t *testing.T) {
	answer := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x82\x01x"
	for split := 1; split < len(answer); split++ {
		var h headScan
		rest, done, ok := h.scan([]byte(answer[:split]))
		if done { // what follows the head in later reads is the stream's
			rest = append(rest, answer[split:]...)
		} else {
			rest, done, ok = h.scan([]byte(answer[split:]))
		}
		if !done || !ok || string(rest) != "\x82\x01x" {
			t.Fatalf("split at %d: done %v ok %v rest %q", split, done, ok, rest)
		}
	}
	var h headScan
	if _, _, ok := h.scan([]byte("HTTP/1.1 403 Forbidden\r\n\r\n")); ok {
		t.Error("a 403 passed as an upgrade")
	}
}
