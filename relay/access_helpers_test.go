package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/mc"
)

// transports are the WebSocket transports access control is tested on: ws, and wss under each
// TLS provider (the subtest names match scripts/expected-skips.txt for a pure-Go build).
var accessTransports = []struct {
	name     string
	protocol Protocol
	provider string
}{{"ws", WS, ""}, {"wss go", WSS, "go"}, {"wss boringssl", WSS, "boringssl"}}

// useTransport sets the proxy's TLS provider for a wss transport.
func useTransport(t *testing.T, c *Config, provider string) {
	if provider != "" {
		c.TLS = tlsServer(t, provider)
	}
}

// signer issues test tokens with one key; verifier checks them (and any extra keys).
type signer struct{ key *access.PrivateKey }

func newSigner(t testing.TB, alg access.Algorithm, id string) signer {
	t.Helper()
	k, err := access.GenerateKey(alg, id)
	if err != nil {
		t.Fatal(err)
	}
	return signer{k}
}

// token issues a token for subject valid now, changed by edit when it is not nil.
func (s signer) token(t testing.TB, subject string, edit func(*access.Claims)) string {
	t.Helper()
	now := time.Now()
	c := access.Claims{Subject: subject, IssuedAt: now, NotBefore: now.Add(-time.Minute), Expires: now.Add(time.Hour)}
	if edit != nil {
		edit(&c)
	}
	tok, err := access.Issue(s.key, c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func verifier(t testing.TB, keys ...signer) *access.Verifier {
	t.Helper()
	var pubs []access.PublicKey
	for _, k := range keys {
		pubs = append(pubs, k.key.Public())
	}
	v, err := access.NewVerifier(access.VerifierConfig{Keys: pubs})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// wsDial says how a test client opens its WebSocket.
type wsDial struct {
	header       http.Header
	query        url.Values
	subprotocols []string
	from         string // local address; "" is 127.0.0.1
	proxyHeader  string // written before anything else (a load balancer's PROXY header)
	path         string // the request path; "" is /mc
}

// dialAccess opens a WebSocket to the proxy with gorilla's client, which checks the answer as a
// browser does (a selected subprotocol must be one it offered).
func dialAccess(t *testing.T, protocol Protocol, addr string, o wsDial) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	from := o.from
	if from == "" {
		from = "127.0.0.1"
	}
	dialTCP := func(ctx context.Context, network, a string) (net.Conn, error) {
		conn, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}).DialContext(ctx, network, a)
		if err == nil && o.proxyHeader != "" {
			_, err = conn.Write([]byte(o.proxyHeader))
		}
		return conn, err
	}
	d := websocket.Dialer{NetDialContext: dialTCP, Subprotocols: o.subprotocols, HandshakeTimeout: 10 * time.Second}
	if protocol == WSS {
		d.NetDialTLSContext = func(ctx context.Context, network, a string) (net.Conn, error) {
			raw, err := dialTCP(ctx, network, a)
			if err != nil {
				return nil, err
			}
			tc := tls.Client(raw, &tls.Config{InsecureSkipVerify: true})
			return tc, tc.HandshakeContext(ctx)
		}
	}
	path := o.path
	if path == "" {
		path = "/mc"
	}
	u := url.URL{Scheme: string(protocol), Host: addr, Path: path, RawQuery: o.query.Encode()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return d.DialContext(ctx, u.String(), o.header)
}

// wsExchange sends a login handshake for host and bytes behind it, and wants them echoed by
// the test backend.
func wsExchange(t *testing.T, c *websocket.Conn, host string) {
	t.Helper()
	payload := make([]byte, 300)
	rand.Read(payload)
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := c.WriteMessage(websocket.BinaryMessage, append(handshakeFrame(host, mc.NextLogin), payload...)); err != nil {
		t.Fatal(err)
	}
	var got []byte
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for len(got) < len(payload) {
		_, msg, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v", len(got), len(payload), err)
		}
		got = append(got, msg...)
	}
	if !bytes.Equal(got, payload) {
		t.Fatal("the backend's echo differs from what was sent")
	}
}

// wsRefusedAfterHello sends a login handshake for host and wants the proxy to answer with a
// login disconnect that says access is denied, and nothing more.
func wsRefusedAfterHello(t *testing.T, c *websocket.Conn, host string) {
	t.Helper()
	if got := wsLoginAnswer(t, c, host); !bytes.Contains(got, []byte("Access denied.")) {
		t.Fatalf("the client got %q, want a disconnect saying access is denied", got)
	}
}

func deniedCount(t *testing.T, srv *Server, reason access.Reason) float64 {
	t.Helper()
	v, ok := metricValue(t, srv, "moonbridge_access_denied_total", map[string]string{"reason": string(reason)})
	if !ok {
		t.Fatalf("no moonbridge_access_denied_total series for %s", reason)
	}
	return v
}
