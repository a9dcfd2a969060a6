package ws

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/gossl/tlstest"
)

// tlsLayer is how a test server terminates TLS: with crypto/tls or one of gossl's providers, so
// the interop suites run over every TLS the proxy can serve wss with.
type tlsLayer struct {
	name   string
	wrap   func(net.Listener) net.Listener // nil for plain ws
	client *tls.Config                     // trusts the server's certificate
	skip   string                          // why this build cannot run the layer
}

// run runs f as a subtest over the layer, skipping with the reason when the build lacks it.
func (l tlsLayer) run(t *testing.T, f func(*testing.T, tlsLayer)) {
	t.Run(l.name, func(t *testing.T) {
		if l.skip != "" {
			t.Skip(l.skip)
		}
		f(t, l)
	})
}

func (l tlsLayer) orNil() *tlsLayer {
	if l.wrap == nil {
		return nil
	}
	return &l
}

// tlsLayers lists plain ws, crypto/tls, and gossl's go and boringssl providers (the last skips
// in a build without it).
func tlsLayers(t *testing.T) []tlsLayer {
	cert, pool := testCert(t)
	layers := []tlsLayer{
		{name: "ws"},
		{name: "wss crypto-tls", client: &tls.Config{RootCAs: pool}, wrap: func(ln net.Listener) net.Listener {
			return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}})
		}},
	}
	for _, name := range []string{"go", "boringssl"} {
		layers = append(layers, gosslLayer(t, name))
	}
	return layers
}

func gosslLayer(t *testing.T, provider string) tlsLayer {
	srv, pair, err := tlstest.TLSServer(t, provider)
	if err != nil {
		return tlsLayer{name: "wss gossl " + provider, skip: err.Error()}
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pair.CertPEM)
	return tlsLayer{
		name:   "wss gossl " + provider,
		client: &tls.Config{RootCAs: pool},
		wrap:   func(ln net.Listener) net.Listener { return gosslListener{ln, srv} },
	}
}

// gosslListener hands out gossl server connections.
type gosslListener struct {
	net.Listener
	srv *gossl.Server
}

func (l gosslListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.srv.Wrap(c), nil
}
