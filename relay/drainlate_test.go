package relay

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/bench/modern/playtest"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay/pool"
	"github.com/moonbridge/moonbridge/ws"
)

// gateRuntime is a wake runtime whose Start only says that it was asked: the test starts the
// server when it wants.
type gateRuntime struct{ asked chan struct{} }

func (g gateRuntime) Start(context.Context) error {
	select {
	case g.asked <- struct{}{}:
	default:
	}
	return nil
}

func (gateRuntime) Stop(context.Context) error { return nil }

// TestDrainCountsAPlayerMovedOnceItsRelayStarts: a player whose relay starts after the drain
// began (here: held while its server wakes; on an event loop also a session registered on the
// loop a moment before it became movable, the flake of issue 39) is not movable when the drain
// looks, and is moved as its relay starts. The drain counts it transferred: it was, by the
// drain (it counted "ended: 1, transferred: 0").
func TestDrainCountsAPlayerMovedOnceItsRelayStarts(t *testing.T) {
	for _, protocol := range []Protocol{Minecraft, WS} {
		t.Run(string(protocol), func(t *testing.T) {
			back := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
			sleeping, release := reserveAddr(t)
			gate := gateRuntime{asked: make(chan struct{}, 1)}
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(sleeping)
				c.Routes[0].Wake = &pool.Wake{Runtime: gate, Hold: true, ReadyTimeout: 20 * time.Second}
				c.Transfer = transferTarget
			}, protocol)
			release()

			conn := dialWithHeader(t, protocol, addr, http.Header{ws.BridgeHeader: {"127.0.0.1:41234"}})
			defer conn.Close()
			joined := make(chan error, 1)
			go func() {
				cl, err := playtest.Join(conn, "localhost", 25565, "Steve", 2, nil)
				if err == nil { // the Transfer came in play rather than in configuration
					_, err = awaitTransfer(t, cl)
					if err == nil {
						err = modern.ErrTransferred
					}
				}
				joined <- err
			}()
			select {
			case <-gate.asked: // the login waits for its server: no relay yet
			case <-time.After(testutil.WaitBound):
				t.Fatal("the login did not wake the server")
			}
			result := drainInBackground(t, srv, time.Minute)
			testutil.WaitFor(t, "the drain to find the waiting player not movable", func() bool {
				return moves(t, srv, transferNotMovable) == 1
			})
			if _, err := testutil.ServeAt(t, sleeping, forwardTo(back.Addr)); err != nil {
				t.Fatal(err)
			}
			if err := <-joined; !errors.Is(err, modern.ErrTransferred) {
				t.Fatalf("the player's join: %v, want a Transfer once its relay started", err)
			}
			conn.Close() // at once, as a client does on a Transfer
			if r := drainResult(t, result); r.Transferred != 1 || r.Ended != 1 || r.Closed != 0 {
				t.Errorf("drain result %+v, want the player transferred, ended by itself", r)
			}
		})
	}
}

// forwardTo serves a connection by relaying it to addr.
func forwardTo(addr string) func(net.Conn) {
	return func(c net.Conn) {
		defer c.Close()
		be, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer be.Close()
		go func() { io.Copy(be, c); be.(*net.TCPConn).CloseWrite() }()
		io.Copy(c, be)
	}
}
