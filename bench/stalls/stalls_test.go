package stalls

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/flood"
)

// listen serves stalls: each accepted connection reads what it is sent, then is closed at once
// when closeAfterRead, else held until the listener's test ends.
func listen(t *testing.T, closeAfterRead bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go func() {
				c.Read(make([]byte, 4096))
				if closeAfterRead {
					c.Close()
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func TestStallsAreHeldAndSampled(t *testing.T) {
	for _, closes := range []bool{false, true} {
		cfg := Config{Target: listen(t, closes), Count: 60, Sources: flood.Sources{Networks: 3}, Hold: 200 * time.Millisecond,
			Settle: 50 * time.Millisecond, PID: os.Getpid(), Every: 50 * time.Millisecond, Workers: 8}
		res, err := Run(context.Background(), cfg)
		if err != nil || res.Opened != 60 || res.DialFailed != 0 {
			t.Fatalf("target closes %v: opened %d, failed %d, %v (%s)", closes, res.Opened, res.DialFailed, err, res.FirstError)
		}
		if want := map[bool]int64{false: 0, true: 60}[closes]; res.ClosedByTarget != want {
			t.Errorf("target closes %v: %d closed by the target, want %d", closes, res.ClosedByTarget, want)
		}
		if res.Before.RSSKiB <= 0 || res.PeakRSSKiB < res.Before.RSSKiB || res.AfterSettle.HWMKiB <= 0 {
			t.Errorf("memory samples of this process: before %+v, peak %d KiB, after %+v", res.Before, res.PeakRSSKiB, res.AfterSettle)
		}
	}
}
