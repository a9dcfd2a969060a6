package gossl

import (
	"testing"
	"time"
)

// FuzzServerEngine feeds arbitrary bytes to a server of each provider compiled in: the
// handshake and a read must end with an error or data, never a crash or a hang. The peer
// (scriptConn) never blocks, so an input whose handshake, read and close take longer than
// testTimeout is a loop in the provider and fails. Leaks are not measured here.
func FuzzServerEngine(f *testing.F) {
	hello := clientHello(f)
	f.Add(hello)
	f.Add(hello[:len(hello)/2])
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Add([]byte{0x16, 0x03, 0x01, 0xff, 0xff})
	f.Add([]byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28})
	f.Add([]byte{})
	servers := []*Server{}
	for _, p := range []func() (Provider, error){func() (Provider, error) { return GoProvider(), nil }, boringProvider} {
		if prov, err := p(); err == nil {
			srv, err := prov.NewServer(testConfig(f))
			if err != nil {
				f.Fatal(err)
			}
			servers = append(servers, srv)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, srv := range servers {
			done := make(chan struct{})
			go func() {
				defer close(done)
				c := srv.Wrap(newScriptConn(data))
				if c.HandshakeContext(t.Context()) == nil {
					_, _ = c.Read(make([]byte, 64))
				}
				_ = c.Close()
			}()
			select {
			case <-done:
			case <-time.After(testTimeout):
				t.Fatalf("%s: handshake, read and close of %d input bytes still running after %v (a hang)",
					srv.Provider(), len(data), testTimeout)
			}
		}
	})
}
