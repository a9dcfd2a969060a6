package ws

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"strings"
	"testing"
)

// hijackRecorder is an http.ResponseWriter that can be hijacked; after a
// hijack everything written goes to conn.
type hijackRecorder struct {
	header   http.Header
	status   int
	conn     net.Conn
	hijacked bool
}

func (h *hijackRecorder) Header() http.Header { return h.header }
func (h *hijackRecorder) WriteHeader(s int) {
	if h.status == 0 {
		h.status = s
	}
}
func (h *hijackRecorder) Write(b []byte) (int, error) {
	h.WriteHeader(http.StatusOK)
	return len(b), nil
}

func (h *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h.hijacked = true
	return h.conn, bufio.NewReadWriter(bufio.NewReader(h.conn), bufio.NewWriter(h.conn)), nil
}

// FuzzUpgradeRequest parses arbitrary bytes as a request and serves it: no
// panic; either one upgrade with a correct accept key and, if any, a
// subprotocol the request offered, or a refusal with one of the statuses the
// endpoint uses (early data's 400 and 431 among them).
func FuzzUpgradeRequest(f *testing.F) {
	for _, seed := range []string{
		upgradeReq("/mc"),
		upgradeReq("/other"),
		upgradeReq("/mc", "Origin: https://evil.example\r\n"),
		upgradeReq("/mc", "X-Refuse: 1\r\n"),
		upgradeReq("/mc", "Sec-WebSocket-Protocol: minecraft\r\n"),
		upgradeReq("/mc", "Sec-WebSocket-Protocol: moonbridge-ed-raw, moonbridge-ed, moonbridge-raw, moonbridge-ed.FwD_BRBw\r\n"),
		upgradeReq("/mc", "Sec-WebSocket-Protocol: moonbridge-ed\r\nSec-WebSocket-Protocol: moonbridge-ed.QUJD, moonbridge-ed.QUJD\r\n"),
		upgradeReq("/mc", "Sec-WebSocket-Extensions: permessage-deflate\r\n"),
		strings.Replace(upgradeReq("/mc"), "dGhlIHNhbXBsZSBub25jZQ==", "short", 1),
		strings.Replace(upgradeReq("/mc"), "GET", "POST", 1),
		"GET /mc HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /mc HTTP/1.0\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		handled := 0
		srv := NewServer(ServerConfig{
			Conn:         noKeepalive(),
			Subprotocols: []string{"minecraft"},
			EarlyData:    64,
			RawStream:    true,
			Admit: func(r *http.Request) (int, string) {
				if r.Header.Get("X-Refuse") != "" {
					return http.StatusServiceUnavailable, "full"
				}
				return 0, ""
			},
		}, func(*Conn, *http.Request) { handled++ })
		sc := &scriptConn{}
		rec := &hijackRecorder{header: http.Header{}, conn: sc}
		srv.ServeHTTP(rec, req)

		if !rec.hijacked {
			switch rec.status {
			case 400, 403, 404, 405, 426, 431, 503, 505:
			default:
				t.Fatalf("refused with status %d", rec.status)
			}
			if handled != 0 {
				t.Fatal("handler ran without an upgrade")
			}
			return
		}
		if handled != 1 {
			t.Fatalf("upgraded, handler ran %d times", handled)
		}
		var out []byte
		for _, w := range sc.writes {
			out = append(out, w.data...)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), req)
		if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("hijacked answer %q: %v", out, err)
		}
		if resp.Header.Get("Sec-WebSocket-Accept") != acceptKey(req.Header.Get("Sec-WebSocket-Key")) {
			t.Fatal("wrong Sec-WebSocket-Accept")
		}
		offer, _ := ParseOffer(req.Header, 0)
		if p := resp.Header.Get("Sec-WebSocket-Protocol"); p != "" && (!offer.offers(p) || strings.HasPrefix(p, EarlyDataPrefix)) {
			t.Fatalf("selected %q, which is not a token the request offered (%q)", p, offer.Values)
		}
	})
}
