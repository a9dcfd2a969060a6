package relay

import (
	"bytes"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// helloCount is how many sessions reached b.
func (b *testBackend) helloCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.hellos)
}

// reload applies mutate to srv's current configuration and reloads it.
func reload(srv *Server, mutate func(*Config)) (ListenerChanges, error) {
	cfg := srv.settings().Config
	cfg.Listeners = slices.Clone(cfg.Listeners) // the running snapshot must not change
	mutate(&cfg)
	return srv.Reload(cfg)
}

// openSession starts a login session over protocol and checks it relays both ways.
func openSession(t *testing.T, protocol Protocol, addr string) net.Conn {
	t.Helper()
	conn := dialClient(t, protocol, addr)
	t.Cleanup(func() { conn.Close() })
	exchange(t, conn, "localhost", 64<<10)
	return conn
}

// Issue 13, defect 9: a changed route was ignored until a restart. After a reload new players
// go to the new backend while a running session keeps talking to its own, byte-exact.
func TestReloadMovesNewPlayersOnly(t *testing.T) {
	for _, protocol := range []Protocol{Minecraft, WS, WSS} {
		t.Run(string(protocol), func(t *testing.T) {
			oldBackend, newBackend := startBackend(t, false), startBackend(t, false)
			srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(oldBackend.addr()) }, protocol)
			running := openSession(t, protocol, addr)
			if _, err := reload(srv, func(c *Config) { c.Routes = routeTo(newBackend.addr()) }); err != nil {
				t.Fatal(err)
			}
			openSession(t, protocol, addr)
			exchange(t, running, "", 1<<20)
			if o, n := oldBackend.helloCount(), newBackend.helloCount(); o != 1 || n != 1 {
				t.Errorf("sessions at the old backend %d, at the new one %d; want 1 and 1", o, n)
			}
		})
	}
}

// A configuration that does not check out changes nothing: new players keep the old route and
// a running session goes on.
func TestReloadRejectsBrokenConfig(t *testing.T) {
	for _, protocol := range []Protocol{Minecraft, WS, WSS} {
		t.Run(string(protocol), func(t *testing.T) {
			backend, other := startBackend(t, false), startBackend(t, false)
			srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, protocol)
			running := openSession(t, protocol, addr)
			// Each broken file also moves the route: a reload half applied would show.
			for name, broken := range map[string]func(*Config){
				"route without backends": func(c *Config) { c.Routes = []Route{{Hosts: []string{"*"}}} },
				"wss without TLS": func(c *Config) {
					c.Routes, c.TLS = routeTo(other.addr()), nil
					c.Listeners[0].Protocols = []Protocol{WSS}
				},
				"address listed twice": func(c *Config) {
					c.Routes = routeTo(other.addr())
					c.Listeners = append(c.Listeners, c.Listeners[0])
				},
				"address in use": func(c *Config) {
					c.Routes = routeTo(other.addr())
					c.Listeners = append(c.Listeners, Listener{Addr: addr, Protocols: []Protocol{WS}})
				},
			} {
				if _, err := reload(srv, broken); err == nil {
					t.Errorf("a reload with a %s succeeded", name)
				}
			}
			openSession(t, protocol, addr)
			exchange(t, running, "", 1<<20)
			if n, o := backend.helloCount(), other.helloCount(); n != 2 || o != 0 {
				t.Errorf("the configured backend saw %d sessions, the broken files' %d; want 2 and 0", n, o)
			}
		})
	}
}

// freeAddr is a loopback address with a port nothing listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	addr, release := reserveAddr(t)
	release()
	return addr
}

// reserveAddr is a loopback address whose port stays taken until release: a test that starts
// other listeners on port 0 meanwhile (the proxy, test servers) cannot be given it, as it could
// be freeAddr's. Release it just before the address is to be served, or dialed as closed.
func reserveAddr(t *testing.T) (addr string, release func()) {
	t.Helper()
	addr = testutil.FreePort(t) // below the ephemeral range: no outgoing connection takes it once released
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return addr, func() { ln.Close() }
}

// A listener added by a reload serves; once removed it refuses new players, while the session
// it accepted goes on. The first listener keeps its socket throughout.
func TestReloadAddsAndRemovesListeners(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, Minecraft)
	first := srv.Addrs()[0]
	extra := freeAddr(t)
	changes, err := reload(srv, func(c *Config) {
		c.Listeners = append(c.Listeners, Listener{Addr: extra, Protocols: []Protocol{WS}})
	})
	if err != nil || len(changes.Added) != 1 || changes.Added[0] != extra {
		t.Fatalf("adding a listener: %+v, %v", changes, err)
	}
	running := openSession(t, WS, extra)
	changes, err = reload(srv, func(c *Config) { c.Listeners = c.Listeners[:1] })
	if err != nil || len(changes.Removed) != 1 {
		t.Fatalf("removing a listener: %+v, %v", changes, err)
	}
	checkClosed(t, extra)
	exchange(t, running, "", 1<<20)
	openSession(t, Minecraft, addr)
	if got := srv.Addrs(); len(got) != 1 || got[0] != first {
		t.Errorf("listeners after the reloads: %v, want the first one, %v, unchanged", got, first)
	}
}

// Changing a listener's protocols restarts it on the same address: it serves the new set, and
// the session it accepted before goes on.
func TestReloadChangesProtocols(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) { c.Routes = routeTo(backend.addr()) }, Minecraft)
	fixed := freeAddr(t) // port 0 would move: the test wants the same address after the restart
	if _, err := reload(srv, func(c *Config) { c.Listeners[0].Addr = fixed }); err != nil {
		t.Fatal(err)
	}
	running := openSession(t, Minecraft, fixed)
	changes, err := reload(srv, func(c *Config) { c.Listeners[0].Protocols = []Protocol{Minecraft, WS} })
	if err != nil || len(changes.Restarted) != 1 {
		t.Fatalf("changing the protocols: %+v, %v", changes, err)
	}
	openSession(t, WS, fixed)
	exchange(t, running, "", 1<<20)
	checkClosed(t, addr)
}

// checkClosed fails the test when the proxy still listens on addr, a listener a reload took
// away: a dial that connects fails it only while the socket that answers is this process's (a
// freed port may have been bound by another test binary since).
func checkClosed(t *testing.T, addr string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return
	}
	conn.Close()
	port := addrPort(t, addr).Port()
	if here, err := listensHere(int(port)); err != nil || here {
		t.Errorf("the listener %s a reload took away still accepts connections (%v)", addr, err)
	}
}

// A Reload before Start binds nothing: Start binds the listeners, once (a SIGHUP that came
// while the process started made a second socket for one address, whose accept loop then
// outlived Close).
func TestReloadBeforeStartIsRefused(t *testing.T) {
	cfg := Config{
		Listeners: []Listener{{Addr: "127.0.0.1:0", Protocols: []Protocol{Minecraft}}},
		Routes:    routeTo("127.0.0.1:1"),
		Logger:    zerolog.New(zerolog.NewTestWriter(t)),
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Reload(cfg); err == nil {
		t.Error("a Reload before Start succeeded")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Addrs()); n != 1 {
		t.Errorf("%d listeners after Start, want 1", n)
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s: a listener outlived it")
	}
}

// A reload that raises the per-address limit lets in a player the old limit refused.
func TestReloadChangesLimits(t *testing.T) {
	srv, addr := startLimitedProxy(t, Minecraft) // one connection per address
	openSession(t, Minecraft, addr)
	refused := dialClient(t, Minecraft, addr)
	defer refused.Close()
	refused.Write(handshakeFrame("localhost", mc.NextLogin))
	refused.SetReadDeadline(time.Now().Add(10 * time.Second))
	if answer, _ := io.ReadAll(refused); !bytes.Contains(answer, []byte("over the limit")) {
		t.Fatalf("a second connection from one address under a limit of 1 got %q, want the limit's disconnect", answer)
	}
	if _, err := reload(srv, func(c *Config) { c.Limits.MaxConnectionsPerIP = 2 }); err != nil {
		t.Fatal(err)
	}
	openSession(t, Minecraft, addr)
}
