package playtest

import (
	"io"
	"net"
	"sync"
	"testing"

	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// Forwarder is a stand-in proxy in front of a Backend: it relays each connection's bytes both
// ways (the backend's whole frames at a time) and can drain its players as a proxy that shuts
// down does, moving each with Store Cookies and a Transfer, or dropping it with a Disconnect.
type Forwarder struct {
	Addr    string // host:port on 127.0.0.1
	backend *Backend

	mu    sync.Mutex
	conns []*forwarded // connected now, in the order they came
}

// forwarded is one player's connection and its backend connection.
type forwarded struct {
	client, backend net.Conn
	down            chan struct{} // closed when the backend-to-player copy ended
	mu              sync.Mutex    // a drain's packets go out before the player is closed
}

// Move is what Drain does with one player: a Transfer to Host:Port after a Store Cookie for
// each of Cookies, or, with Host empty, a Disconnect with Reason.
type Move struct {
	Host    string
	Port    uint16
	Cookies map[string][]byte
	Reason  string
}

// StartForwarder relays to backend until the test ends; its drains write in the backend's
// compression. Players must be in play when drained.
func StartForwarder(t testing.TB, backend *Backend) *Forwarder {
	t.Helper()
	f := &Forwarder{backend: backend}
	f.Addr = testutil.Serve(t, f.Serve).Addr().String()
	return f
}

// Serve relays one player's connection (a test's WebSocket stream, say) until either side
// leaves or Drain moves the player.
func (f *Forwarder) Serve(client net.Conn) {
	be, err := net.Dial("tcp", f.backend.Addr)
	if err != nil {
		client.Close()
		return
	}
	fc := &forwarded{client: client, backend: be, down: make(chan struct{})}
	f.add(fc)
	defer f.remove(fc)
	go func() {
		defer close(fc.down)
		copyFrames(client, be)
	}()
	io.Copy(be, client)
	be.Close()
	<-fc.down
	fc.mu.Lock()
	client.Close()
	fc.mu.Unlock()
}

// Players is how many players are connected now.
func (f *Forwarder) Players() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.conns)
}

// Drain ends every connected player's session as plan says for the i-th of them, and returns
// how many there were.
func (f *Forwarder) Drain(plan func(i int) Move) int {
	f.mu.Lock()
	conns := append([]*forwarded(nil), f.conns...)
	f.mu.Unlock()
	for i, fc := range conns {
		fc.move(plan(i), f.backend.opts.Compression)
	}
	return len(conns)
}

// move stops the backend's bytes at a frame boundary, then sends the player m's packets and
// closes it. A write that fails is the player gone already.
func (fc *forwarded) move(m Move, compression int32) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.backend.Close()
	<-fc.down
	c := modern.NewConn(fc.client, nil)
	c.SetCompression(compression)
	if m.Host == "" {
		reason, _ := modern.DisconnectFields(m.Reason)
		c.WritePacket(modern.PlayDisconnectID, reason)
	} else {
		for key, value := range m.Cookies {
			c.WritePacket(modern.PlayStoreCookieID, modern.StoreCookieFields(key, value))
		}
		c.WritePacket(modern.PlayTransferID, modern.TransferFields(m.Host, m.Port))
	}
	fc.client.Close()
}

func (f *Forwarder) add(fc *forwarded) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.conns = append(f.conns, fc)
}

func (f *Forwarder) remove(fc *forwarded) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range f.conns {
		if c == fc {
			f.conns = append(f.conns[:i], f.conns[i+1:]...)
			return
		}
	}
}

// copyFrames copies src's frames to dst, only whole ones, until either fails.
func copyFrames(dst io.Writer, src io.Reader) {
	r := mc.NewFrameReader(src, 4<<10)
	for r.Fill() == nil {
		for {
			frame, _, ok, err := r.Next()
			if err != nil {
				return
			}
			if !ok {
				break
			}
			if _, err := dst.Write(frame); err != nil {
				return
			}
		}
	}
}
