// Package stalls holds TLS handshakes stalled part-way through their ClientHello against a
// target, from many loopback /24s, while it samples a process's resident memory: what a
// stalled-handshake flood costs the proxy, and what the proxy gives back after it (`mbbench
// stalls`). A stall is a TCP connection that sent the first Bytes of a crypto/tls ClientHello
// and nothing more; it is held until Hold is over or the target closes it.
package stalls

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/flood"
	"github.com/moonbridge/moonbridge/bench/procfs"
)

// Config is one run.
type Config struct {
	Target  string        // host:port of a wss (or TLS) listener
	Count   int           // stalls to open
	Sources flood.Sources // the /24s they come from, connection i from Sources.Addr(i)
	Bytes   int           // of the ClientHello each sends; 0: half of it
	Hold    time.Duration // from the last stall opened to closing them all
	Settle  time.Duration // sampling after they are closed, for what the target gives back
	PID     int           // the target's process, whose memory is sampled; 0: none
	Every   time.Duration // between samples
	Workers int           // dials in flight at once
}

// Sample is one reading: seconds from the start, the target's resident memory and its peak so
// far (VmRSS, VmHWM), and the stalls open then.
type Sample struct {
	T      float64 `json:"t"`
	RSSKiB int64   `json:"rss_kib"`
	HWMKiB int64   `json:"hwm_kib"`
	Open   int64   `json:"open"`
}

// Result is what a run saw.
type Result struct {
	Opened         int64    `json:"opened"`
	DialFailed     int64    `json:"dial_failed"`
	ClosedByTarget int64    `json:"closed_by_target"` // before the hold was over
	FirstError     string   `json:"first_error,omitempty"`
	Before         Sample   `json:"before"`       // before the first dial
	AllOpen        Sample   `json:"all_open"`     // once every dial is done
	HoldEnd        Sample   `json:"hold_end"`     // when the hold is over, before closing
	AfterSettle    Sample   `json:"after_settle"` // Settle after closing
	PeakRSSKiB     int64    `json:"peak_rss_kib"`
	Samples        []Sample `json:"samples"`
}

// Check refuses a run that cannot be made.
func (c Config) Check() error {
	if c.Count < 1 || c.Hold <= 0 || c.Every <= 0 || c.Workers < 1 || c.Settle < 0 {
		return errors.New("stalls: count, hold, every and workers must be positive, settle not negative")
	}
	return c.Sources.Check()
}

// Run opens the stalls, holds them, closes them and lets the target settle.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.Check(); err != nil {
		return Result{}, err
	}
	hello, err := flood.ClientHello("stalls.test")
	if err != nil {
		return Result{}, err
	}
	if cfg.Bytes <= 0 || cfg.Bytes >= len(hello) {
		cfg.Bytes = len(hello) / 2
	}
	r := &run{cfg: cfg, hello: hello[:cfg.Bytes], start: time.Now()}
	var res Result
	res.Before = r.sample()
	stop := r.sampleEvery(ctx)
	r.openAll(ctx)
	res.AllOpen = r.sample()
	select {
	case <-time.After(cfg.Hold):
	case <-ctx.Done():
	}
	res.HoldEnd = r.sample()
	r.closeAll()
	select {
	case <-time.After(cfg.Settle):
	case <-ctx.Done():
	}
	res.AfterSettle = r.sample()
	res.Samples = stop()
	res.Opened, res.DialFailed, res.ClosedByTarget = r.opened.Load(), r.failed.Load(), r.closedByTarget.Load()
	res.FirstError = r.firstError()
	for _, s := range append(res.Samples, res.Before, res.AllOpen, res.HoldEnd, res.AfterSettle) {
		res.PeakRSSKiB = max(res.PeakRSSKiB, s.RSSKiB)
	}
	return res, ctx.Err()
}

type run struct {
	cfg   Config
	hello []byte
	start time.Time

	opened, failed, closedByTarget, open atomic.Int64
	closing                              atomic.Bool

	mu       sync.Mutex
	conns    []net.Conn
	firstErr string
}

// openAll dials every stall, Workers at a time.
func (r *run) openAll(ctx context.Context) {
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range r.cfg.Workers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(r.cfg.Count) && ctx.Err() == nil; i = next.Add(1) - 1 {
				r.stall(ctx, r.cfg.Sources.Addr(uint64(i)))
			}
		})
	}
	wg.Wait()
}

// stall opens one connection, sends the part of the hello and watches it for the target's close.
func (r *run) stall(ctx context.Context, src netip.Addr) {
	d := net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(src, 0)), Timeout: 10 * time.Second}
	c, err := d.DialContext(ctx, "tcp", r.cfg.Target)
	if err == nil {
		_, err = c.Write(r.hello)
	}
	if err != nil {
		r.failed.Add(1)
		r.noteError(err)
		if c != nil {
			c.Close()
		}
		return
	}
	r.opened.Add(1)
	r.open.Add(1)
	r.mu.Lock()
	r.conns = append(r.conns, c)
	r.mu.Unlock()
	go r.watch(c)
}

// watch reads until the connection ends: the target closed it unless closeAll did.
func (r *run) watch(c net.Conn) {
	buf := make([]byte, 512)
	for {
		if _, err := c.Read(buf); err != nil {
			break
		}
	}
	r.open.Add(-1)
	if !r.closing.Load() {
		r.closedByTarget.Add(1)
	}
}

func (r *run) closeAll() {
	r.closing.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Close()
	}
}

func (r *run) noteError(err error) {
	r.mu.Lock()
	if r.firstErr == "" {
		r.firstErr = err.Error()
	}
	r.mu.Unlock()
}

func (r *run) firstError() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.firstErr
}

// sampleEvery samples until the returned stop is called, which returns the samples.
func (r *run) sampleEvery(ctx context.Context) (stop func() []Sample) {
	done := make(chan struct{})
	out := make(chan []Sample)
	go func() {
		var samples []Sample
		tick := time.NewTicker(r.cfg.Every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				samples = append(samples, r.sample())
			case <-done:
				out <- samples
				return
			case <-ctx.Done():
				<-done
				out <- samples
				return
			}
		}
	}()
	return func() []Sample { close(done); return <-out }
}

// sample reads the target's memory now (zero without a PID or when it cannot be read).
func (r *run) sample() Sample {
	s := Sample{T: time.Since(r.start).Seconds(), Open: r.open.Load()}
	if r.cfg.PID == 0 {
		return s
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(r.cfg.PID) + "/status")
	if err != nil {
		r.noteError(fmt.Errorf("target's memory: %w", err))
		return s
	}
	s.RSSKiB, _ = procfs.ParseVmRSSKiB(string(data))
	s.HWMKiB, _ = procfs.ParseVmHWMKiB(string(data))
	return s
}
