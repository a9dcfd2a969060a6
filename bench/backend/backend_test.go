package backend

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// TestOutOfOrderTickIsRefused: a relay that reorders or drops serverbound packets makes the
// backend close the session and count a failure, which fails the run.
func TestOutOfOrderTickIsRefused(t *testing.T) {
	be, err := Listen("127.0.0.1:0", traffic.Modded(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	c, err := net.Dial("tcp", be.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	c.Write(login.AppendRequest(nil, "localhost", 25565, "bad"))
	answer := login.AppendAnswer(nil, "bad")
	if _, err := io.ReadFull(c, make([]byte, len(answer))); err != nil {
		t.Fatal(err)
	}
	c.Write(login.AppendPositionConfirm(nil))
	var req traffic.Request
	traffic.Modded().Request(1, &req) // tick 0 skipped
	c.Write(req.Bytes)
	io.Copy(io.Discard, c) // the burst, then the backend hangs up
	be.Close()
	if be.Failures() != 1 {
		t.Errorf("failures %d, want 1", be.Failures())
	}
}
