package stalls

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/flood"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

// listen serves stalls: each accepted connection reads what it is sent, then is closed at once
// when closeAfterRead, else held until the test ends.
func listen(t *testing.T, closeAfterRead bool) string {
	t.Helper()
	return testutil.Serve(t, func(c net.Conn) {
		c.Read(make([]byte, 4096))
		if closeAfterRead {
			c.Close()
			return
		}
		c.Read(make([]byte, 1)) // until the stall or the test ends it
	}).Addr().String()
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
