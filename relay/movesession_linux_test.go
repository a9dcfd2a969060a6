package relay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/moonbridge/moonbridge/bench/modern/playtest"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/moved"
	"github.com/moonbridge/moonbridge/ws"
)

// playerOf18 logs a 1.8 player (no play tracker) named name in through addr, with the login
// passed through, and waits for the echo backend to echo its Login Start.
func playerOf18(t *testing.T, addr, name string) net.Conn {
	t.Helper()
	conn := dialClient(t, Minecraft, addr)
	t.Cleanup(func() { conn.Close() })
	login := login18(name)
	conn.Write(append(handshake18("play"), login...))
	echoesExactly(t, conn, nil, login)
	return conn
}

// handshake18 is a 1.8 login handshake for host; login18 a 1.8 Login Start for name.
func handshake18(host string) []byte {
	return mc.Handshake{Protocol: 47, Host: host, Port: 25565, NextState: mc.NextLogin}.AppendFrame(nil, host)
}

func login18(name string) []byte {
	shape, _, _ := mc.LoginShapeOf(47)
	return mc.AppendLoginStart(nil, shape, mc.LoginStart{Name: name})
}

// waitOnLoop waits until every session of srv but wss ones (crypto/tls in these tests) is on
// its event loop (the handshake goroutine hands it over and then records it: a session caught
// between the two stays in a hand-over), on the loops' data path.
func waitOnLoop(t *testing.T, srv *Server) {
	t.Helper()
	if testDataPath != DataPathLoop {
		return
	}
	testutil.WaitFor(t, "the sessions to be on the loops", func() bool {
		for _, sess := range srv.sessionList() {
			if sess.protocol != string(WSS) && sess.loopSession.Load() == nil {
				return false
			}
		}
		return true
	})
}

// echoesExactly writes out (nil: nothing) and reads want back, exactly.
func echoesExactly(t *testing.T, conn net.Conn, out, want []byte) {
	t.Helper()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if out != nil {
		if _, err := conn.Write(out); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(conn, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("echoed %q, %v; want %q", got, err, want)
	}
}

// onlySession is the one session srv lists.
func onlySession(t *testing.T, srv *Server) SessionInfo {
	t.Helper()
	list := srv.Sessions()
	if len(list) != 1 {
		t.Fatalf("%d sessions listed, want 1: %+v", len(list), list)
	}
	return list[0]
}

// A raw-TCP session on the loops moves into another server (as into an upgrade's new process):
// the old one forgets it, the new one lists it with its player and its byte counts, and the
// stream goes on exactly. On the goroutines' data path nothing moves and it says why.
func TestMoveSessionsIntoAnotherServer(t *testing.T) {
	backend := startBackend(t, false)
	routes := func(c *Config) { c.Routes = routeTo(backend.addr()) }
	from, addr := startProxy(t, routes, Minecraft)
	to, _ := startProxy(t, routes, Minecraft)
	conn := playerOf18(t, addr, "Alex")
	echoesExactly(t, conn, []byte("before"), []byte("before"))
	before := onlySession(t, from)
	waitOnLoop(t, from)
	r := from.MoveSessions(adoptInto(t, to))
	if !movedOne(t, r) {
		echoesExactly(t, conn, []byte("after"), []byte("after"))
		return
	}
	if list := from.Sessions(); len(list) != 0 {
		t.Errorf("the old server still lists %+v", list)
	}
	echoesExactly(t, conn, []byte("after"), []byte("after"))
	// Every byte of the session's life, counted once: the loop counts a write just after it.
	wantUp, wantDown := int64(len(handshake18("play"))+len(login18("Alex"))+len("before")+len("after")), int64(len(login18("Alex"))+len("before")+len("after"))
	if !testutil.Within(5*time.Second, func() bool { s := onlySession(t, to); return s.BytesUp == wantUp && s.BytesDown == wantDown }) {
		t.Errorf("the new server counts %+v, want %d up and %d down", onlySession(t, to), wantUp, wantDown)
	}
	if moved := onlySession(t, to); moved.Player != "Alex" || moved.Route != before.Route || !moved.Since.Equal(before.Since) {
		t.Errorf("the new server lists %+v; before the move %+v", moved, before)
	}
	// Its backend counts it in the new server (least-connections, a wake's idle stop), not in the old.
	if from, to := backendActive(from), backendActive(to); from != 0 || to != 1 {
		t.Errorf("the backend's active sessions: %d in the old server, %d in the new; want 0 and 1", from, to)
	}
	conn.Close()
	testutil.WaitFor(t, "the moved session to end in the new server", func() bool { return len(to.Sessions()) == 0 })
	if n := backendActive(to); n != 0 {
		t.Errorf("the backend counts %d sessions in the new server after the end, want 0", n)
	}
}

// backendActive is the sessions srv's first route's first backend counts now.
func backendActive(srv *Server) int64 { return srv.settings().router.routes[0].pool.Active(0) }

// movedOne checks the report of a hand-over of one session: moved on the loops, staying for
// not being on one on goroutines; and says whether it moved.
func movedOne(t *testing.T, r MoveReport) bool {
	t.Helper()
	if testDataPath != DataPathLoop {
		if r.Moved != 0 || r.Stayed[stayNotOnLoop] != 1 {
			t.Errorf("on goroutines: %+v, want it to stay, %q", r, stayNotOnLoop)
		}
		return false
	}
	if r.Moved != 1 || len(r.Stayed) != 0 {
		t.Fatalf("report %+v, want 1 moved", r)
	}
	return true
}

// adoptInto is an offer that has to take each session, as an upgrade's new process does (with
// copies of the sockets, as SCM_RIGHTS gives it).
func adoptInto(t *testing.T, to *Server) func(record []byte, fds [2]int) MoveOffer {
	return func(record []byte, fds [2]int) MoveOffer {
		a, err := to.AdoptSession(record, dupBoth(t, fds))
		if err != nil {
			t.Errorf("adopt: %v", err)
			return MoveOffer{Fate: MoveKept, Why: err.Error()}
		}
		if err := a.Run(); err != nil {
			t.Errorf("run: %v", err)
		}
		return MoveOffer{Fate: MoveTaken}
	}
}

// dupBoth is a copy of both descriptors, as the new process gets its own by SCM_RIGHTS.
func dupBoth(t *testing.T, fds [2]int) (dups [2]int) {
	t.Helper()
	for i, fd := range fds {
		d, err := unix.Dup(fd)
		if err != nil {
			t.Fatal(err)
		}
		dups[i] = d
	}
	return dups
}

// A session the new process refuses, or whose offer ends the channel, goes back onto the old
// server's loops and runs on there byte-exact; the ones after a stop are not offered.
func TestMoveSessionsRefusedRunsOn(t *testing.T) {
	backend := startBackend(t, false)
	from, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, Minecraft)
	a := playerOf18(t, addr, "Alex")
	b := playerOf18(t, addr, "Bert")
	waitOnLoop(t, from)
	offers := 0
	r := from.MoveSessions(func([]byte, [2]int) MoveOffer {
		offers++
		return MoveOffer{Fate: MoveKept, Why: "refused here", Stop: true}
	})
	if testDataPath == DataPathLoop && (offers != 1 || r.Stayed["refused here"] != 1 || r.Stayed[stayChannelEnded] != 1) {
		t.Errorf("%d offers, report %+v: want 1 offer, 1 refused and 1 not offered", offers, r)
	}
	if testDataPath != DataPathLoop && r.Stayed[stayNotOnLoop] != 2 {
		t.Errorf("on goroutines: %+v", r)
	}
	for _, conn := range []net.Conn{a, b} {
		echoesExactly(t, conn, []byte("still here"), []byte("still here"))
	}
	if n := len(from.Sessions()); n != 2 {
		t.Errorf("%d sessions listed after the refusal, want 2", n)
	}
	a.Close()
	b.Close()
	testutil.WaitFor(t, "both sessions to end", func() bool { return len(from.Sessions()) == 0 })
}

// A wss player over crypto/tls stays (it is on goroutines); a 1.20.5+ player is offered.
func TestMoveSessionsSaysWhyOthersStay(t *testing.T) {
	backend := startBackend(t, false)
	from, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, Minecraft, WSS)
	loginTo(t, addr, "p") // protocol 767
	wssConn := dialClient(t, WSS, addr)
	t.Cleanup(func() { wssConn.Close() })
	exchange(t, wssConn, "p", 16)
	waitOnLoop(t, from)
	r := from.MoveSessions(func([]byte, [2]int) MoveOffer { return MoveOffer{Fate: MoveKept, Why: "kept by the test"} })
	want := map[string]int{"kept by the test": 1, stayNotOnLoop: 1}
	if testDataPath != DataPathLoop {
		want = map[string]int{stayNotOnLoop: 2}
	}
	if r.Moved != 0 || !maps.Equal(r.Stayed, want) {
		t.Errorf("report %+v: want %v", r, want)
	}
}

// A 1.21 player in play moves with its play tracker: the new server can still put a Transfer
// into its stream, and a drain there sends it one.
func TestMoveSessionsKeepsTheTransfer(t *testing.T) {
	back := playtest.StartBackend(t, playtest.BackendOptions{Compression: 256})
	routes := func(c *Config) { c.Routes, c.Transfer = routeTo(back.Addr), transferTarget }
	from, addr := startProxy(t, routes, Minecraft)
	to, _ := startProxy(t, routes, Minecraft)
	cl := joinThrough(t, Minecraft, addr, nil)
	waitOnLoop(t, from)
	r := from.MoveSessions(adoptInto(t, to))
	if !movedOne(t, r) {
		return
	}
	if err := cl.Echo(bytes.Repeat([]byte("after the move"), 100)); err != nil {
		t.Fatalf("echo after the move: %v", err)
	}
	result := drainInBackground(t, to, time.Minute)
	tr, err := awaitTransfer(t, cl)
	if err != nil || tr.Host != transferTarget.Host {
		t.Fatalf("the moved player's Transfer: %+v, %v", tr, err)
	}
	cl.Close()
	if r := drainResult(t, result); r.Transferred != 1 {
		t.Errorf("drain of the new server %+v, want 1 transferred", r)
	}
}

// A plain ws session moves in the middle of a client message: half of it sent before the move,
// the rest after, and the backend gets it whole, the player its echo, byte-exact; the new server
// lists it as ws.
func TestMoveSessionsWSMidMessage(t *testing.T) {
	backend := startBackend(t, false)
	routes := func(c *Config) { c.Routes = routeTo(backend.addr()) }
	from, addr := startProxy(t, routes, WS)
	to, _ := startProxy(t, routes, WS)
	conn := dialClient(t, Minecraft, addr) // a raw socket: the frames are written here by hand
	t.Cleanup(func() { conn.Close() })
	upgrade(t, conn)
	login, hs := login18("Wes"), handshake18("play")
	conn.Write(maskedFrame(append(hs, login...)))
	readMessages(t, conn, login)
	message := bytes.Repeat([]byte("moving across processes "), 40)
	wire := maskedFrame(message)
	conn.Write(wire[:len(wire)/2])
	testutil.WaitFor(t, "the half message to reach the proxy", func() bool { return onlySession(t, from).BytesUp > int64(len(hs)+len(login)) })
	waitOnLoop(t, from)
	r := from.MoveSessions(adoptInto(t, to))
	conn.Write(wire[len(wire)/2:])
	readMessages(t, conn, message)
	if !movedOne(t, r) {
		return
	}
	conn.Write(maskedFrame([]byte("after")))
	readMessages(t, conn, []byte("after"))
	wantDown := int64(len(login) + len(message) + len("after"))
	if !testutil.Within(5*time.Second, func() bool { return onlySession(t, to).BytesDown == wantDown }) {
		t.Errorf("the new server counts %d bytes down, want %d", onlySession(t, to).BytesDown, wantDown)
	}
	if s := onlySession(t, to); s.Transport != "ws" || s.Player != "Wes" {
		t.Errorf("the new server lists %+v", s)
	}
}

// maskedFrame is one binary client frame (FIN, masked) carrying payload.
func maskedFrame(payload []byte) []byte {
	key := [4]byte{0x12, 0x34, 0x56, 0x78}
	h := ws.Header{Fin: true, OpCode: ws.OpBinary, Masked: true, Mask: binary.LittleEndian.Uint32(key[:]), Length: int64(len(payload))}
	b := make([]byte, ws.MaxHeaderLen)
	b = b[:ws.PutHeader(b, h)]
	for i, c := range payload {
		b = append(b, c^key[i%4])
	}
	return b
}

// readMessages reads the server's frames until their payloads make want, and checks them.
func readMessages(t *testing.T, conn net.Conn, want []byte) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var got []byte
	for len(got) < len(want) {
		head := make([]byte, 2, ws.MaxHeaderLen)
		if _, err := io.ReadFull(conn, head); err != nil {
			t.Fatalf("frame header: %v (read %q)", err, got)
		}
		head = head[:ws.HeaderLen(head[0], head[1])]
		if _, err := io.ReadFull(conn, head[2:]); err != nil {
			t.Fatal(err)
		}
		h, _, err := ws.ParseHeader(head)
		if err != nil || h.OpCode != ws.OpBinary {
			t.Fatalf("frame %+v, %v; want a binary one", h, err)
		}
		payload := make([]byte, h.Length)
		if _, err := io.ReadFull(conn, payload); err != nil {
			t.Fatal(err)
		}
		got = append(got, payload...)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("messages carried %q, want %q", got, want)
	}
}

// The new process refuses what it cannot take, and closes its copies of the sockets then: a
// record that does not read, a route it does not have, another transport, a proxy-run login's
// cipher (not carried on yet).
func TestAdoptSessionRefuses(t *testing.T) {
	to, _ := startProxy(t, func(c *Config) { c.Routes = routeTo("127.0.0.1:1") }, Minecraft)
	good := func(mut func(*moved.Record)) []byte {
		r := moved.Record{Transport: "minecraft", Route: to.settings().router.routes[0].Label(), Client: "127.0.0.1:5"}
		if mut != nil {
			mut(&r)
		}
		b, err := r.Append(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for name, record := range map[string][]byte{
		"garbage":          []byte("not a record"),
		"truncated":        good(nil)[:20],
		"unknown route":    good(func(f *moved.Record) { f.Route = "elsewhere" }),
		"wss, no TLS here": good(func(f *moved.Record) { f.Transport = "wss" }),
		"TLS state on tcp": good(func(f *moved.Record) { f.TLSState = []byte{1} }),
		"login cipher":     good(func(f *moved.Record) { f.LoginCipher = make([]byte, 64) }),
		"ws, bad state":    good(func(f *moved.Record) { f.Transport, f.ClientState = "ws", []byte{9} }),
		"bad client addr":  good(func(f *moved.Record) { f.Client = "nowhere" }),
	} {
		fds, peers := socketPairs(t)
		if _, err := to.AdoptSession(record, fds); err == nil {
			t.Errorf("%s: taken", name)
			continue
		}
		for _, p := range peers {
			p.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := p.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
				t.Errorf("%s: a socket handed in is still open here (%v)", name, err)
			}
		}
	}
	if n := len(to.Sessions()); n != 0 {
		t.Errorf("%d sessions listed after the refusals", n)
	}
}

// socketPairs is two socket pairs: one end of each to hand in, the other to watch.
func socketPairs(t *testing.T) (fds [2]int, peers [2]net.Conn) {
	t.Helper()
	for i := range fds {
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := os.NewFile(uintptr(pair[1]), "peer")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fds[i], peers[i] = pair[0], c
	}
	return fds, peers
}

// A session whose player reads slower than its backend sends, with bytes held for it on the
// loop, is not taken: it stays, says why, and runs on byte-exact once the player reads again.
func TestMoveSessionsLeavesASessionWithHeldBytes(t *testing.T) {
	backend := startBackend(t, false)
	from, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, Minecraft)
	conn := playerOf18(t, addr, "Slow")
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	waitOnLoop(t, from)
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB: more than the sockets hold
	wrote := make(chan error, 1)
	go func() { _, err := conn.Write(payload); wrote <- err }() // echoed, and not read for now
	if testDataPath == DataPathLoop {
		testutil.WaitFor(t, "bytes held for the player", func() bool { return from.engine.Stats().Held > 0 })
	}
	r := from.MoveSessions(func([]byte, [2]int) MoveOffer {
		t.Error("a session with bytes held was offered")
		return MoveOffer{Fate: MoveKept}
	})
	got := make([]byte, len(payload))
	_, err := io.ReadFull(conn, got)
	if err != nil || !bytes.Equal(got, payload) || <-wrote != nil {
		t.Fatalf("the echo after the hand-over: %v, equal %v", err, bytes.Equal(got, payload))
	}
	want := map[string]int{"client has bytes held for it": 1}
	if testDataPath != DataPathLoop {
		want = map[string]int{stayNotOnLoop: 1}
	}
	if !maps.Equal(r.Stayed, want) {
		t.Errorf("report %+v, want %v", r, want)
	}
}
