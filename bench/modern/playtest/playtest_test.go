package playtest

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// tee keeps every byte a player read, to look at the frames themselves.
type tee struct {
	net.Conn
	got bytes.Buffer
}

func (c *tee) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.got.Write(p[:n])
	return n, err
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func join(t *testing.T, conn net.Conn, name string) *Client {
	t.Helper()
	c, err := Join(conn, "play.example", 25565, name, modern.NextLogin, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestJoinAndEchoStraightToTheBackend(t *testing.T) {
	for _, threshold := range []int32{-1, 256} {
		be := StartBackend(t, BackendOptions{Compression: threshold})
		conn := &tee{Conn: dial(t, be.Addr)}
		c := join(t, conn, "Alex")
		for _, size := range []int{0, 10, 600, 40000} {
			payload := bytes.Repeat([]byte{byte(size), 0xff}, size/2)
			if err := c.Echo(payload); err != nil {
				t.Fatalf("threshold %d: echo of %d bytes: %v", threshold, size, err)
			}
		}
		// The 600-byte echo's answer: packet id, "test:echo" and the data, 611 bytes, deflated.
		zlibbed := bytes.Contains(conn.got.Bytes(), append(mc.AppendVarInt(nil, 611), 0x78))
		if zlibbed != (threshold >= 0) {
			t.Errorf("threshold %d: a zlib frame came: %v", threshold, zlibbed)
		}
		want := []Login{{Name: "Alex", UUID: modern.OfflineUUID("Alex"), Host: "play.example", Port: 25565, NextState: 2}}
		if got := be.Logins(); len(got) != 1 || got[0] != want[0] {
			t.Errorf("threshold %d: logins %+v", threshold, got)
		}
	}
}

func TestEncryptingBackendStopsAtTheEncryptionRequest(t *testing.T) {
	be := StartBackend(t, BackendOptions{Compression: -1, Encrypt: true})
	conn := dial(t, be.Addr)
	defer conn.Close()
	_, err := Join(conn, "localhost", 25565, "Steve", modern.NextLogin, nil)
	var req *modern.EncryptionRequestError
	if !errors.As(err, &req) || !req.ShouldAuthenticate || len(req.VerifyToken) != 4 {
		t.Fatalf("Join = %v", err)
	}
	if _, err := x509.ParsePKIXPublicKey(req.PublicKey); err != nil {
		t.Errorf("public key: %v", err)
	}
	if got := be.Logins(); len(got) != 1 || got[0].Name != "Steve" {
		t.Errorf("logins %+v", got)
	}
}

func TestAwaitTransferHonorsTheContextAndLeavesTheClient(t *testing.T) {
	be := StartBackend(t, BackendOptions{Compression: 64})
	c := join(t, dial(t, be.Addr), "Alex")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.AwaitTransfer(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AwaitTransfer = %v", err)
	}
	if err := c.Echo([]byte("still here")); err != nil {
		t.Errorf("echo after the wait: %v", err)
	}
}

// A player moved from one forwarder to another keeps its cookie and comes back with next
// state 3; one dropped sees the reason.
func TestForwarderDrainsByTransferAndDisconnect(t *testing.T) {
	testutil.CheckGoroutines(t)
	be := StartBackend(t, BackendOptions{Compression: 256})
	from, to := StartForwarder(t, be), StartForwarder(t, be)
	moved, dropped := join(t, dial(t, from.Addr), "Moved"), join(t, dial(t, from.Addr), "Dropped")
	host, port := splitHostPort(t, to.Addr)
	cookie := map[string][]byte{"moonbridge:transfer": []byte("signed blob")}
	n := from.Drain(func(i int) Move {
		if i == 0 {
			return Move{Host: host, Port: port, Cookies: cookie}
		}
		return Move{Reason: "Server closed"}
	})
	if n != 2 {
		t.Fatalf("drained %d players", n)
	}
	tr, err := moved.AwaitTransfer(context.Background())
	if err != nil || tr.Host != host || tr.Port != port || tr.State != modern.StatePlay || !bytes.Equal(tr.Cookies["moonbridge:transfer"], cookie["moonbridge:transfer"]) {
		t.Fatalf("AwaitTransfer = %+v, %v", tr, err)
	}
	var de *DisconnectError
	if _, err := dropped.AwaitTransfer(context.Background()); !errors.As(err, &de) || de.Reason != "Server closed" {
		t.Errorf("dropped player: %v", err)
	}
	again, err := Join(dial(t, to.Addr), tr.Host, tr.Port, "Moved", modern.NextTransfer, tr.Cookies)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := again.Echo(make([]byte, 600)); err != nil {
		t.Error(err)
	}
	if l := be.Logins(); len(l) != 3 || l[2].NextState != modern.NextTransfer || l[2].Host != host {
		t.Errorf("logins %+v", l)
	}
}

func splitHostPort(t *testing.T, addr string) (string, uint16) {
	t.Helper()
	ap, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return ap.IP.String(), uint16(ap.Port)
}
