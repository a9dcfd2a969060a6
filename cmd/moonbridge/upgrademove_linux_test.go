package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/boring"
	"github.com/moonbridge/moonbridge/internal/handover"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/moved"
	"github.com/moonbridge/moonbridge/relay/pool"
)

// movingPlayer is a raw-TCP player of 1.8 (passed-through login, no play tracker) that streams
// a byte pattern of its own to an echo backend and checks every byte it gets back.
type movingPlayer struct {
	name     string
	conn     net.Conn
	rw       io.ReadWriter // the stream over conn: conn itself, or a login's cipher over it
	sent     atomic.Int64  // bytes written, the first ones included
	echoed   atomic.Int64  // pattern bytes read back and checked
	first    int64         // handshake and Login Start
	login    int64         // Login Start, which the echo backend echoes (not the handshake)
	started  time.Time
	stop     chan struct{}
	wrote    chan struct{} // closed when the writer has stopped
	done     sync.WaitGroup
	mu       sync.Mutex
	failures []error
}

const moveChunk = 1500

func startMovingPlayer(t *testing.T, transport, addr, name string) *movingPlayer {
	t.Helper()
	conn, err := dialTransport(transport, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	shape, _, _ := mc.LoginShapeOf(47)
	hs := mc.Handshake{Protocol: 47, Host: "localhost", Port: 25565, NextState: mc.NextLogin}.AppendFrame(nil, "localhost")
	login := mc.AppendLoginStart(nil, shape, mc.LoginStart{Name: name})
	p := &movingPlayer{name: name, conn: conn, rw: conn, stop: make(chan struct{}), wrote: make(chan struct{}), first: int64(len(hs) + len(login)), login: int64(len(login)), started: time.Now()}
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := conn.Write(append(hs, login...)); err != nil {
		t.Fatal(err)
	}
	echo := make([]byte, len(login))
	if _, err := io.ReadFull(conn, echo); err != nil || !bytes.Equal(echo, login) {
		t.Fatalf("%s: Login Start echoed %x, %v", name, echo, err)
	}
	p.sent.Store(p.first)
	p.stream()
	return p
}

// stream starts the writer and the reader.
func (p *movingPlayer) stream() {
	p.done.Add(2)
	go p.write()
	go p.read()
}

// pattern is the byte at offset i of a player's stream: it names the player and the offset, so
// a byte lost, doubled or from another player shows.
func (p *movingPlayer) pattern(i int64) byte { return byte(i*7+i>>8) ^ p.name[len(p.name)-1] }

func (p *movingPlayer) fail(err error) {
	p.mu.Lock()
	p.failures = append(p.failures, fmt.Errorf("%s: %w", p.name, err))
	p.mu.Unlock()
}

// write streams chunks until stop; the reader still reads what is in flight.
func (p *movingPlayer) write() {
	defer p.done.Done()
	defer close(p.wrote)
	buf := make([]byte, moveChunk)
	var off int64
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		for i := range buf {
			buf[i] = p.pattern(off + int64(i))
		}
		if _, err := p.rw.Write(buf); err != nil {
			p.fail(fmt.Errorf("write at %d: %w", off, err))
			return
		}
		off += int64(len(buf))
		p.sent.Add(int64(len(buf)))
		time.Sleep(time.Millisecond) // paced: many writes are in flight around the move
	}
}

func (p *movingPlayer) read() {
	defer p.done.Done()
	buf := make([]byte, 64<<10)
	var off int64
	for {
		n, err := p.rw.Read(buf)
		for i := range n {
			if buf[i] != p.pattern(off+int64(i)) {
				p.fail(fmt.Errorf("echo byte %d is %#x, want %#x", off+int64(i), buf[i], p.pattern(off+int64(i))))
				return
			}
		}
		off += int64(n)
		p.echoed.Store(off)
		if err != nil {
			select {
			case <-p.stop:
			default:
				p.fail(fmt.Errorf("read at %d: %w", off, err))
			}
			return
		}
	}
}

// finish stops writing, waits until every byte written came back, closes, and returns the
// failures.
func (p *movingPlayer) finish(t *testing.T) []error {
	t.Helper()
	close(p.stop)
	<-p.wrote
	if !testutil.Within(20*time.Second, func() bool { return p.echoed.Load() == p.sent.Load()-p.first }) {
		p.fail(fmt.Errorf("%d pattern bytes echoed of %d sent", p.echoed.Load(), p.sent.Load()-p.first))
	}
	p.conn.Close()
	p.done.Wait()
	return p.failures
}

// Raw-TCP, ws and (with BoringSSL, TLS 1.3) wss sessions streaming both ways move to the new
// process in an upgrade: SIGUSR2 mid-stream with writes in flight, every session moves, the old
// process, with none left, exits at once (not after upgrade.stay), every stream stays
// byte-exact, the new process's sessions API lists the sessions with their players, and each
// session's one end line (from the new process) has the byte counts of its whole life. In the
// pure-Go build a wss player (crypto/tls, on goroutines) stays, counted with its reason, and
// the old process exits once it has left.
func TestUpgradeMovesTCPAndWSSessions(t *testing.T) {
	p := startOld(t, "upgrade: {stay: 10m}\n")
	var players, stayers []*movingPlayer
	for i := range 3 {
		players = append(players, startMovingPlayer(t, "tcp", p.tcp, fmt.Sprintf("Mover%d", i)))
		players = append(players, startMovingPlayer(t, "ws", p.ws, fmt.Sprintf("WSMover%d", i)))
		if boring.Enabled {
			players = append(players, startMovingPlayer(t, "wss", p.ws, fmt.Sprintf("WSSMover%d", i)))
		}
	}
	if !boring.Enabled {
		stayers = append(stayers, startMovingPlayer(t, "wss", p.ws, "WSSStayer"))
	}
	testutil.WaitFor(t, "every stream to be under way", func() bool {
		for _, pl := range append(players, stayers...) {
			if pl.echoed.Load() < 20*moveChunk {
				return false
			}
		}
		return true
	})
	handed := upgradeHanded(t, p.cmd, p.log)
	pid := int(handed["new_pid"].(float64))
	if stayed, _ := handed["stayed_by_reason"].(map[string]any); len(stayers) > 0 && stayed["not on an event loop"] != float64(len(stayers)) {
		t.Errorf("the hand-over's line %v: want %d wss stayed, not on an event loop", handed, len(stayers))
	}
	for _, pl := range stayers { // byte-exact in the old process, then gone
		for _, err := range pl.finish(t) {
			t.Error(err)
		}
	}
	done, passed := p.log.waitCollecting(t, "upgrade: this process is done")
	movedBy := time.Now()
	if done["moved"] != float64(len(players)) || done["stayed"] != float64(len(stayers)) {
		t.Errorf("last line of the old process %v: want %d moved, %d stayed", done, len(players), len(stayers))
	}
	for _, line := range passed {
		if line["message"] == "session ended" && line["player"] != "WSSStayer" {
			t.Errorf("the old process ended a session: %v", line)
		}
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("old process: %v, want exit status 0", err)
	}
	waitStreamsGoOn(t, players)
	listed := newProcessSessions(t, p.admin)
	for _, pl := range players {
		if s, ok := listed[pl.name]; !ok || s["transport"] != transportOf(pl.name) || s["route"] == "" || s["bytes_up"].(float64) < float64(pl.first) {
			t.Errorf("the new process (pid %d) lists %s as %v", pid, pl.name, s)
		}
	}
	for _, pl := range players {
		for _, err := range pl.finish(t) {
			t.Error(err)
		}
	}
	ends := map[string]map[string]any{}
	for len(ends) < len(players) {
		line, _ := p.log.waitCollecting(t, "session ended")
		name, _ := line["player"].(string)
		if ends[name] != nil {
			t.Errorf("two end lines for %s: %v and %v", name, ends[name], line)
		}
		ends[name] = line
	}
	for _, pl := range players {
		end := ends[pl.name]
		up, down := pl.sent.Load(), pl.login+pl.echoed.Load()
		if end["bytes_up"] != float64(up) || end["bytes_down"] != float64(down) {
			t.Errorf("%s ended with up %v down %v, want %d and %d: %v", pl.name, end["bytes_up"], end["bytes_down"], up, down, end)
		}
		// The session's whole life, not the part in the new process alone.
		if d, err := time.ParseDuration(fmt.Sprint(end["duration"])); err != nil || d < movedBy.Sub(pl.started) {
			t.Errorf("%s: duration %v, want at least the %s it had lived by the end of the old process", pl.name, end["duration"], movedBy.Sub(pl.started))
		}
	}
}

// waitStreamsGoOn waits until every player has had 20 more chunks echoed than now: their
// streams go on (through the new process, after an upgrade).
func waitStreamsGoOn(t *testing.T, players []*movingPlayer) {
	t.Helper()
	before := make([]int64, len(players))
	for i, pl := range players {
		before[i] = pl.echoed.Load()
	}
	testutil.WaitFor(t, "the streams to go on through the new process", func() bool {
		for i, pl := range players {
			if pl.echoed.Load() < before[i]+20*moveChunk {
				return false
			}
		}
		return true
	})
}

// transportOf is the transport of the moving player named name.
func transportOf(name string) string {
	switch {
	case strings.HasPrefix(name, "WSS"):
		return "wss"
	case strings.HasPrefix(name, "WS"):
		return "ws"
	}
	return "minecraft"
}

// newProcessSessions is what GET /sessions of the admin endpoint says, by player.
func newProcessSessions(t *testing.T, admin string) map[string]map[string]any {
	t.Helper()
	code, body := testutil.BearerCall(t, http.MethodGet, "http://"+admin+"/sessions", "", "")
	if code != http.StatusOK {
		t.Fatalf("GET /sessions: %d %s", code, body)
	}
	var list struct{ Sessions []map[string]any }
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, s := range list.Sessions {
		name, _ := s["player"].(string)
		out[name] = s
	}
	return out
}

// channel is both ends of a hand-over channel in this process.
func channel(t *testing.T) (parent, child *handover.Conn) {
	t.Helper()
	parent, file, err := handover.Pair()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Dup(int(file.Fd()))
	file.Close()
	if err != nil {
		t.Fatal(err)
	}
	if child, err = handover.Open(uintptr(fd)); err != nil {
		t.Fatal(err)
	}
	parent.Expect(os.Getpid())
	t.Cleanup(func() { parent.Close(); child.Close() })
	return parent, child
}

// What the old process makes of each answer the new one can give about a session.
func TestOfferSessionFates(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fds := [2]int{int(r.Fd()), int(w.Fd())}
	for _, tc := range []struct {
		name   string
		answer func(*handover.Conn)
		want   relay.MoveOffer
	}{
		{"taken", func(c *handover.Conn) { c.Answer(nil, soon()) }, relay.MoveOffer{Fate: relay.MoveTaken}},
		{"refused", func(c *handover.Conn) { c.Answer(errors.New("no"), soon()) }, relay.MoveOffer{Fate: relay.MoveKept, Why: stayRefused}},
		{"ended", func(c *handover.Conn) { c.Close() }, relay.MoveOffer{Fate: relay.MoveKept, Why: stayNoTaker, Stop: true}},
		{"garbled", func(c *handover.Conn) { c.SendReady(soon()) }, relay.MoveOffer{Fate: relay.MoveUnknown, Stop: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, child := channel(t)
			go func() {
				m, err := child.ReceiveSession(soon())
				if err == nil {
					syscall.Close(m.FDs[0])
					syscall.Close(m.FDs[1])
				}
				tc.answer(child)
			}()
			if got := offerSession(parent, []byte("record"), fds, zerolog.Nop()); got != tc.want {
				t.Errorf("offer: %+v, want %+v", got, tc.want)
			}
		})
	}
}

func soon() time.Time { return time.Now().Add(5 * time.Second) }

// The new process refuses a session whose descriptors or record it cannot take, with a reason
// the old one reads, closes its copies of the sockets, and reads the next one.
func TestReceiveSessionsRefusesAndGoesOn(t *testing.T) {
	srv, err := relay.New(relay.Config{
		Listeners: []relay.Listener{{Addr: "127.0.0.1:0", Protocols: []relay.Protocol{relay.Minecraft}}},
		Routes:    []relay.Route{{Hosts: []string{"*"}, Backends: []pool.Backend{{Addr: "127.0.0.1:1"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	parent, child := channel(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	another := binary.BigEndian.AppendUint16(nil, moved.Format+1)
	type result struct {
		taken, refused int
		err            error
	}
	got := make(chan result, 1)
	go func() {
		taken, refused, err := receiveSessions(child, srv, zerolog.Nop())
		got <- result{taken, refused, err}
	}()
	var reasons []string
	for _, send := range []func() error{
		func() error { return parent.SendSession(another, [2]int{int(w.Fd()), int(w.Fd())}, soon()) },
		func() error {
			return parent.SendSession([]byte("not a record"), [2]int{int(w.Fd()), int(w.Fd())}, soon())
		},
	} {
		if err := send(); err != nil {
			t.Fatal(err)
		}
		var refused *handover.RefusedError
		if err := parent.AwaitAnswer(soon()); !errors.As(err, &refused) {
			t.Fatalf("answer: %v, want a refusal", err)
		}
		reasons = append(reasons, refused.Reason)
	}
	w.Close()
	parent.Close()
	if res := <-got; res.taken != 0 || res.refused != 2 || res.err != nil {
		t.Errorf("the new process took %d, refused %d, ended with %v; want 0, 2, nil", res.taken, res.refused, res.err)
	}
	if !strings.Contains(reasons[0], fmt.Sprintf("format %d", moved.Format+1)) {
		t.Errorf("refusal of another format says %q", reasons[0])
	}
	r.SetReadDeadline(soon())
	if _, err := r.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a descriptor sent along is still open in the new process: %v", err)
	}
}
