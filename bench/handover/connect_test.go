package handover

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/flood"
	"github.com/moonbridge/moonbridge/internal/testutil"
)

// The connect loop tells a ping the sink answered from a port nobody listens on and from a
// listener that closes at once.
func TestConnectLoopCountsOKRefusedAndReset(t *testing.T) {
	sink, err := flood.ListenSink("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	closer, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	go func() {
		for {
			c, err := closer.Accept()
			if err != nil {
				return
			}
			c.(*net.TCPConn).SetLinger(0) // a reset, as a process that dies with the connection queued
			c.Close()
		}
	}()
	nobody := testutil.ClosedPort(t)
	for _, tc := range []struct {
		target string
		want   func(Connects) int64
	}{
		{sink.Addr(), func(c Connects) int64 { return c.OK }},
		{nobody, func(c Connects) int64 { return c.Refused }},
		{closer.Addr().String(), func(c Connects) int64 { return c.Reset }},
	} {
		// Cancelled, as the run stops the loop: a deadline's dial can fail with an i/o timeout
		// just before its context says it ended.
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		c := connectLoop(ctx, 20*time.Millisecond, tc.target, "ping.test")
		if c.Attempts == 0 || tc.want(c) != c.Attempts {
			t.Errorf("%s: %+v, want every attempt in its class", tc.target, c)
		}
	}
}
