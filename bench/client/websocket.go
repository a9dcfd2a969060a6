package client

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/netip"
	"net/url"

	"github.com/moonbridge/moonbridge/ws"
)

// webSocketDialer reaches a relay over ws or wss with the ws package's client. ws.Conn.Write
// sends each call as one binary message, so --client-coalesce keeps the meaning it had in the
// Java MoonBridge's benchmark: one message per packet by default, one per tick with it.
type webSocketDialer struct{ cfg ws.DialConfig }

// newWebSocketDialer checks that target is a URL of the transport's scheme.
func newWebSocketDialer(transport, target string) (Dialer, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != transport || u.Host == "" {
		return nil, fmt.Errorf("client: transport %s needs a %s://HOST:PORT/PATH target, not %q", transport, transport, target)
	}
	return webSocketDialer{cfg: ws.DialConfig{
		URL: target,
		// The relays under test run on loopback with throwaway self-signed certificates.
		TLSConfig: &tls.Config{InsecureSkipVerify: true},
		Conn:      ws.DefaultConfig(),
	}}, nil
}

func (d webSocketDialer) from(local netip.Addr) Dialer { d.cfg.LocalAddr = local; return d }

func (d webSocketDialer) Dial(ctx context.Context) (Stream, error) {
	return ws.Dial(ctx, d.cfg)
}
