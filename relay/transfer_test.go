package relay

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/bench/modern/playtest"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/ws"
)

// transferTarget is where the tests' drains send raw TCP players.
var transferTarget = Transfer{Host: "live.example.net", Port: 25565}

// joinThrough logs a playtest client in through the proxy at addr over protocol, up to play,
// and checks one echo each way.
func joinThrough(t *testing.T, protocol Protocol, addr string, header http.Header) *playtest.Client {
	t.Helper()
	conn := dialWithHeader(t, protocol, addr, header)
	cl, err := playtest.Join(conn, "localhost", 25565, "Steve", 2, nil)
	if err != nil {
		conn.Close()
		t.Fatalf("join through the proxy: %v", err)
	}
	t.Cleanup(func() { cl.Close() })
	if err := cl.Echo(bytes.Repeat([]byte("before"), 100)); err != nil {
		t.Fatalf("echo before the drain: %v", err)
	}
	return cl
}

// dialWithHeader is dialClient with extra upgrade request headers for ws and wss.
func dialWithHeader(t *testing.T, protocol Protocol, addr string, header http.Header) net.Conn {
	t.Helper()
	if header == nil || protocol == Minecraft {
		return dialClient(t, protocol, addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := ws.Dial(ctx, ws.DialConfig{URL: string(protocol) + "://" + addr + "/mc", Header: header,
		TLSConfig: &tls.Config{InsecureSkipVerify: true}})
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func awaitTransfer(t *testing.T, cl *playtest.Client) (playtest.Transfer, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return cl.AwaitTransfer(ctx)
}

func drainResult(t *testing.T, result <-chan DrainResult) DrainResult {
	t.Helper()
	select {
	case r := <-result:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("the drain did not end")
		return DrainResult{}
	}
}

// TestDrainTransfersAPlayerInPlay: a raw TCP player of 1.21.1 in play gets the signed cookie
// and a Transfer to transfer_to, with compression off and on; once it leaves, the drain is over
// without closing anyone.
func TestDrainTransfersAPlayerInPlay(t *testing.T) {
	for _, threshold := range []int32{-1, 256} {
		t.Run("threshold "+strconv.Itoa(int(threshold)), func(t *testing.T) {
			back := playtest.StartBackend(t, playtest.BackendOptions{Compression: threshold})
			cookies := NewTransferCookies([]byte("shared secret"), 0)
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(back.Addr)
				c.Transfer = transferTarget
				c.Transfer.Cookies = cookies
			}, Minecraft)
			cl := joinThrough(t, Minecraft, addr, nil)
			result := drainInBackground(t, srv, time.Minute)
			tr, err := awaitTransfer(t, cl)
			if err != nil {
				t.Fatalf("waiting for the Transfer: %v", err)
			}
			if tr.Host != transferTarget.Host || tr.Port != transferTarget.Port {
				t.Errorf("transferred to %s:%d, want %s:%d", tr.Host, tr.Port, transferTarget.Host, transferTarget.Port)
			}
			if err := cookies.Verify("Steve", tr.Cookies[TransferCookieKey]); err != nil {
				t.Errorf("the cookie stored before the Transfer: %v", err)
			}
			cl.Close() // what a client does on a Transfer
			if r := drainResult(t, result); r.Transferred != 1 || r.Closed != 0 || r.Ended != 1 {
				t.Errorf("drain result %+v, want 1 transferred, ended by itself", r)
			}
			if n := moves(t, srv, transferSent); n != 1 {
				t.Errorf("moonbridge_drain_moves_total{outcome=transferred} %v, want 1", n)
			}
		})
	}
}

// TestTransferMovesAPlayerToAnotherInstance: a rolling restart of two instances in front of
// one backend: the player drained from the first joins the second with a transfer handshake
// and the cookie, the backend sees an ordinary login there, and bytes flow on, byte-exact.
func TestTransferMovesAPlayerToAnotherInstance(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	second, _, tr, r := drainOneToSecond(t, func(c *Config) { c.Routes = routeTo(back.Addr) })
	if r.Transferred != 1 || r.Closed != 0 {
		t.Errorf("drain result %+v", r)
	}
	conn := dialClient(t, Minecraft, net.JoinHostPort(tr.Host, strconv.Itoa(int(tr.Port))))
	again, err := playtest.Join(conn, tr.Host, tr.Port, "Steve", 3, tr.Cookies)
	if err != nil {
		t.Fatalf("joining the second instance after the transfer: %v", err)
	}
	defer again.Close()
	if err := again.Echo(bytes.Repeat([]byte("after"), 200)); err != nil {
		t.Fatalf("echo on the second instance: %v", err)
	}
	logins := back.Logins()
	if len(logins) != 2 || logins[1].NextState != 2 {
		t.Errorf("backend logins %+v, want two, the second with next state 2 (login)", logins)
	}
	if n := metricCount(t, second, "moonbridge_transfer_logins_total", nil); n != 1 {
		t.Errorf("moonbridge_transfer_logins_total on the second instance %v, want 1", n)
	}
}

// drainOneToSecond runs two instances set up by routes, the first sending what it drains to
// the second with a signed cookie, joins one player to the first, drains it once the player
// is in play and returns the second, its address, the player's Transfer and the drain's result.
func drainOneToSecond(t *testing.T, routes func(*Config)) (*Server, string, playtest.Transfer, DrainResult) {
	t.Helper()
	second, secondAddr := startProxy(t, routes, Minecraft)
	target := addrPort(t, secondAddr)
	first, firstAddr := startProxy(t, func(c *Config) {
		routes(c)
		c.Transfer = Transfer{Host: target.Addr().String(), Port: target.Port(), Cookies: testCookies}
	}, Minecraft)
	cl := joinThrough(t, Minecraft, firstAddr, nil)
	result := drainInBackground(t, first, time.Minute)
	tr, err := awaitTransfer(t, cl)
	if err != nil {
		t.Fatalf("waiting for the Transfer: %v", err)
	}
	cl.Close()
	return second, secondAddr, tr, drainResult(t, result)
}

// testCookies sign the transfer cookies of the tests' instances.
var testCookies = NewTransferCookies([]byte("shared secret"), 0)

// TestDrainSendsABridgedPlayerBackToItsBridge: a WebSocket player whose upgrade named its bridge
// goes back to that bridge's port, at the host its handshake named, not to transfer_to.
func TestDrainSendsABridgedPlayerBackToItsBridge(t *testing.T) {
	for _, protocol := range []Protocol{WS, WSS} {
		t.Run(string(protocol), func(t *testing.T) {
			back := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(back.Addr)
				c.Transfer = transferTarget
			}, protocol)
			cl := joinThrough(t, protocol, addr, http.Header{ws.BridgeHeader: {"127.0.0.1:41234"}})
			result := drainInBackground(t, srv, time.Minute)
			tr, err := awaitTransfer(t, cl)
			if err != nil {
				t.Fatalf("waiting for the Transfer: %v", err)
			}
			if tr.Host != "localhost" || tr.Port != 41234 {
				t.Errorf("bridged player transferred to %s:%d, want its bridge at the name it used, localhost:41234", tr.Host, tr.Port)
			}
			cl.Close()
			if r := drainResult(t, result); r.Transferred != 1 {
				t.Errorf("drain result %+v", r)
			}
		})
	}
}

// TestDrainTellsOtherWebSocketPlayersWhy: a WebSocket player without moonbridge's bridge cannot
// come back through the CDN on a raw address: it stays, and at the drain's end reads the
// restarting message in a Disconnect instead of losing the connection.
func TestDrainTellsOtherWebSocketPlayersWhy(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.Transfer = transferTarget
		c.RestartingMOTD = "Back in a minute"
	}, WS)
	cl := joinThrough(t, WS, addr, nil)
	result := drainInBackground(t, srv, 500*time.Millisecond)
	_, err := awaitTransfer(t, cl)
	var de *playtest.DisconnectError
	if !errors.As(err, &de) || de.Reason != "Back in a minute" {
		t.Fatalf("the player saw %v, want a Disconnect that says the restarting message", err)
	}
	if r := drainResult(t, result); r.Transferred != 0 || r.Told != 1 || r.Closed != 1 {
		t.Errorf("drain result %+v, want none transferred, one told and closed", r)
	}
}

// TestDrainLeavesOlderClientsAsBefore: a 1.20.4 client (protocol 765, no Transfer packet) on
// the same route is not moved, nor sent a packet it does not know: it drains as before.
func TestDrainLeavesOlderClientsAsBefore(t *testing.T) {
	back := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(back.addr())
		c.Transfer = transferTarget
	}, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	hs := mc.Handshake{Protocol: 765, Host: "localhost", Port: 25565, NextState: mc.NextLogin}
	conn.Write(hs.AppendFrame(nil, "localhost"))
	conn.Write([]byte("ping"))
	echoed := make([]byte, 4)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, echoed); err != nil {
		t.Fatal(err)
	}
	r := drainResult(t, drainInBackground(t, srv, 300*time.Millisecond))
	if r.Transferred != 0 || r.Told != 0 || r.Closed != 1 {
		t.Errorf("drain result %+v, want the older client closed at the deadline as before", r)
	}
	if n := moves(t, srv, transferNotMovable); n != 1 {
		t.Errorf("moonbridge_drain_moves_total{outcome=not_movable} %v, want 1", n)
	}
}

// TestDrainCannotMoveAnEncryptedStream: behind a passthrough route, a backend in online mode
// encrypts the stream with the client (its Encryption Request): the proxy puts nothing in.
func TestDrainCannotMoveAnEncryptedStream(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1, Encrypt: true})
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.Transfer = transferTarget
	}, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	_, err := playtest.Join(conn, "localhost", 25565, "Steve", 2, nil)
	if !errors.As(err, new(*modern.EncryptionRequestError)) {
		t.Fatalf("join: %v, want the backend's Encryption Request", err)
	}
	r := drainResult(t, drainInBackground(t, srv, 300*time.Millisecond))
	if r.Transferred != 0 || r.Told != 0 || r.Closed != 1 {
		t.Errorf("drain result %+v, want none transferred nor told, closed at the deadline", r)
	}
	if n := moves(t, srv, transferFailed); n != 1 {
		t.Errorf("moonbridge_drain_moves_total{outcome=failed} %v, want 1", n)
	}
}

// moves is moonbridge_drain_moves_total{outcome}.
func moves(t *testing.T, srv *Server, outcome string) float64 {
	return metricCount(t, srv, "moonbridge_drain_moves_total", map[string]string{"outcome": outcome})
}

func metricCount(t *testing.T, srv *Server, name string, labels map[string]string) float64 {
	t.Helper()
	v, ok := metricValue(t, srv, name, labels)
	if !ok {
		t.Fatalf("no series %s%v", name, labels)
	}
	return v
}

// TestTransferCookieIsCheckedWhereThePlayerLands: on routes whose login the proxy runs, the
// instance a drain sent the player to asks the transfer login for its cookie: the one the first
// instance stored is valid there, and a player that shows none is counted as absent and still
// let in.
func TestTransferCookieIsCheckedWhereThePlayerLands(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	second, secondAddr, tr, _ := drainOneToSecond(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.Routes[0].Login = &auth.Config{TransferCookies: testCookies}
	})
	for _, stored := range []map[string][]byte{tr.Cookies, nil} {
		again, err := playtest.Join(dialClient(t, Minecraft, secondAddr), tr.Host, tr.Port, "Steve", 3, stored)
		if err != nil {
			t.Fatalf("transfer login with cookies %v: %v", stored != nil, err)
		}
		if err := again.Echo([]byte("after the transfer")); err != nil {
			t.Fatal(err)
		}
		again.Close()
	}
	valid := metricCount(t, second, "moonbridge_transfer_cookies_total", map[string]string{"result": "valid"})
	absent := metricCount(t, second, "moonbridge_transfer_cookies_total", map[string]string{"result": "absent"})
	if valid != 1 || absent != 1 {
		t.Errorf("transfer cookies valid %v, absent %v; want 1 and 1", valid, absent)
	}
}

// TestMoveRouteTransfersTheRoutesPlayers: the admin's move of one route sends its raw TCP
// players a Transfer to the address it names, with the cookie that names the host each joined
// at, and leaves the server running (ready); a player is moved once; an unknown route is
// refused.
func TestMoveRouteTransfersTheRoutesPlayers(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
	cookies := NewTransferCookies([]byte("shared secret"), 0)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.Routes[0].Name = "survival"
		c.Transfer.Cookies = cookies
	}, Minecraft)
	cl := joinThrough(t, Minecraft, addr, nil)
	awaitMovable(t, srv)
	other := addrPort(t, addr).Port() + 1 // another instance's port on this machine
	moved, err := srv.MoveRoute("survival", "127.0.0.1", other)
	if err != nil || moved.Transferring != 1 || moved.Staying != 0 || moved.To != "127.0.0.1:"+strconv.Itoa(int(other)) {
		t.Fatalf("MoveRoute: %+v, %v", moved, err)
	}
	tr, err := awaitTransfer(t, cl)
	if err != nil || tr.Host != "127.0.0.1" || tr.Port != other {
		t.Fatalf("the route's player: %+v, %v", tr, err)
	}
	if host, err := NewTransferCookies([]byte("shared secret"), 0).check("Steve", tr.Cookies[TransferCookieKey]); err != nil || host != "localhost" {
		t.Errorf("the cookie: host %q, %v; want the host the player joined at, localhost", host, err)
	}
	if again, err := srv.MoveRoute("survival", "127.0.0.1", other); err != nil || again.Transferring != 1 {
		t.Errorf("a second move of the route: %+v, %v", again, err)
	}
	if n := moves(t, srv, transferSent); n != 1 {
		t.Errorf("moonbridge_drain_moves_total{outcome=transferred} %v after two moves, want 1: a player is moved once", n)
	}
	if !srv.Health().Ready {
		t.Error("moving one route's players made the server not ready")
	}
	var unknown *UnknownRouteError
	if _, err := srv.MoveRoute("creative", "127.0.0.1", other); !errors.As(err, &unknown) {
		t.Errorf("unknown route: %v", err)
	}
}

// awaitMovable waits for srv's one session to be movable: the player's bytes flow on the event
// loop a moment before (startMoves follows the loop's registration); a route's move acts on
// the players in play.
func awaitMovable(t *testing.T, srv *Server) {
	t.Helper()
	testutil.WaitFor(t, "the player's session to be movable", func() bool {
		return slices.ContainsFunc(srv.sessionList(), func(s *session) bool { return s.moves.Load() != nil })
	})
}

// TestMoveRouteSendsNobodyBackHere: the admin's move refuses an address this instance listens
// on, by its IP address or a name that resolves to it (the players would land on the same
// route again), and a name that does not resolve; a bridged player, whose bridge comes back
// through this listener, stays (it was sent back to its bridge, to the same route).
func TestMoveRouteSendsNobodyBackHere(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: -1})
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.Routes[0].Name = "survival"
		c.Transfer = transferTarget
	}, WS)
	cl := joinThrough(t, WS, addr, http.Header{ws.BridgeHeader: {"127.0.0.1:41234"}})
	awaitMovable(t, srv)
	own := addrPort(t, addr).Port()
	for _, host := range []string{"127.0.0.1", "localhost"} {
		var ownErr *OwnListenerError
		if _, err := srv.MoveRoute("survival", host, own); !errors.As(err, &ownErr) {
			t.Errorf("a move to %s:%d, this instance's listener: %v, want refused", host, own, err)
		}
	}
	var target *TransferTargetError
	if _, err := srv.MoveRoute("survival", "nowhere.invalid", 25565); !errors.As(err, &target) {
		t.Errorf("a move to a name that does not resolve: %v, want refused", err)
	}
	moved, err := srv.MoveRoute("survival", "127.0.0.1", own+1)
	if err != nil || moved.Transferring != 0 || moved.Staying != 1 || moved.Note == "" {
		t.Fatalf("MoveRoute with a bridged player: %+v, %v; want it staying, with a note", moved, err)
	}
	// The bridged player gets no Transfer: its stream goes on.
	if err := cl.Echo([]byte("still here")); err != nil {
		t.Errorf("the bridged player after the move: %v", err)
	}
}

// TestDrainWithoutATransferTargetTellsWhy: a server that moves nobody still follows its
// players' streams (bench/results/2026-12-01-transfer.md, D3): its drain tells a 1.21.1 player
// why in a Disconnect before it closes it, and sends no Transfer.
func TestDrainWithoutATransferTargetTellsWhy(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.RestartingMOTD = "Back in a minute"
	}, Minecraft)
	cl := joinThrough(t, Minecraft, addr, nil)
	r := drainResult(t, drainInBackground(t, srv, 300*time.Millisecond))
	if r.Transferred != 0 || r.Told != 1 || r.Closed != 1 {
		t.Errorf("drain result %+v, want the player told and closed at the deadline", r)
	}
	_, err := awaitTransfer(t, cl)
	var de *playtest.DisconnectError
	if !errors.As(err, &de) || de.Reason != "Back in a minute" {
		t.Errorf("the player saw %v, want a Disconnect with the restarting message", err)
	}
}

// TestReplayedTransferCookieLogsInAsAny: the cookie a drain stored is believed once where the
// player lands; shown again, even after a reload that made the route's cookie checker anew, it
// is counted as replayed and the player logs in as any other (here offline: let in).
func TestReplayedTransferCookieLogsInAsAny(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	second, secondAddr, tr, _ := drainOneToSecond(t, func(c *Config) {
		c.Routes = routeTo(back.Addr)
		c.Routes[0].Login = &auth.Config{TransferCookies: NewTransferCookies([]byte("shared secret"), 0)}
	})
	for i := range 2 {
		again, err := playtest.Join(dialClient(t, Minecraft, secondAddr), tr.Host, tr.Port, "Steve", 3, tr.Cookies)
		if err != nil {
			t.Fatalf("transfer login %d: %v", i, err)
		}
		if err := again.Echo([]byte("after the transfer")); err != nil {
			t.Fatal(err)
		}
		again.Close()
		if _, err := reload(second, func(c *Config) {
			c.Routes = slices.Clone(c.Routes) // the running snapshot must not change
			c.Routes[0].Login = &auth.Config{TransferCookies: NewTransferCookies([]byte("shared secret"), 0)}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if valid := metricCount(t, second, "moonbridge_transfer_cookies_total", map[string]string{"result": "valid"}); valid != 1 {
		t.Fatalf("transfer cookies valid %v, want 1: a replayed cookie was believed", valid)
	}
	if replayed := metricCount(t, second, "moonbridge_transfer_cookies_total", map[string]string{"result": "replayed"}); replayed != 1 {
		t.Errorf("transfer cookies replayed %v, want 1", replayed)
	}
}

// TestAMoveReachesAListenerOnEveryAddress: a listener on 0.0.0.0 or :: takes connections to
// any address of this machine on its port (loopback, an interface's), not to another machine's
// nor to another port.
func TestAMoveReachesAListenerOnEveryAddress(t *testing.T) {
	local := netip.MustParseAddr("127.0.0.1")
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() {
				local, _ = netip.AddrFromSlice(n.IP)
				break
			}
		}
	}
	for _, ln := range []string{"0.0.0.0:25565", "[::]:25565"} {
		at := netip.MustParseAddrPort(ln)
		for to, want := range map[string]bool{
			"127.0.0.1:25565": true,
			"[::1]:25565":     true,
			netip.AddrPortFrom(local, 25565).String(): true,
			"192.0.2.7:25565":                         false, // TEST-NET-1: no machine's here
			"127.0.0.1:25566":                         false,
		} {
			if got := reachesListener(netip.MustParseAddrPort(to), at); got != want {
				t.Errorf("%s reaches a listener on %s: %v, want %v", to, ln, got, want)
			}
		}
	}
}
