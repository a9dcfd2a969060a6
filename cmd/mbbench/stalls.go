package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/moonbridge/moonbridge/bench/stalls"
)

// stallsCommand holds TLS handshakes stalled part-way through their ClientHello against a
// running proxy and samples its resident memory (bench/stalls); it prints the run as JSON.
func stallsCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stalls", "[flags]", "Hold TLS handshakes stalled inside their ClientHello against a proxy, from many loopback /24s, and sample its memory.", stdout, stderr)
	var cfg stalls.Config
	fs.StringVar(&cfg.Target, "target", "127.0.0.1:25565", "the proxy's wss listener `ADDR`")
	fs.IntVar(&cfg.Count, "count", 10000, "stalls to open")
	fs.IntVar(&cfg.Sources.Networks, "networks", 100, "loopback /24s they come from (127.10.0.0/24 upward)")
	fs.IntVar(&cfg.Bytes, "bytes", 0, "bytes of the ClientHello each sends (0: half of it)")
	fs.DurationVar(&cfg.Hold, "hold", 20*time.Second, "how long they are held once all are open")
	fs.DurationVar(&cfg.Settle, "settle", 15*time.Second, "sampling after they are closed")
	fs.IntVar(&cfg.PID, "pid", 0, "the proxy's process `ID`, whose VmRSS and VmHWM are sampled (0: none)")
	fs.DurationVar(&cfg.Every, "every", 250*time.Millisecond, "between samples")
	fs.IntVar(&cfg.Workers, "workers", 64, "dials in flight at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := cfg.Check(); err != nil {
		return usageError("%v", err)
	}
	if _, err := raiseNoFile(uint64(cfg.Count)+256, stderr); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	res, err := stalls.Run(ctx, cfg)
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if encErr := enc.Encode(res); encErr != nil {
		return encErr
	}
	fmt.Fprintf(stderr, "# %d opened, %d failed, %d closed by the proxy; RSS before %d KiB, all open %d KiB, peak %d KiB, after settle %d KiB\n",
		res.Opened, res.DialFailed, res.ClosedByTarget, res.Before.RSSKiB, res.AllOpen.RSSKiB, res.PeakRSSKiB, res.AfterSettle.RSSKiB)
	return err
}
