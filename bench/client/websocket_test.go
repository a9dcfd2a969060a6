package client

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/bench/traffic"
	"github.com/moonbridge/moonbridge/ws"
)

// wsRelay is the smallest ws-to-TCP relay: enough to run the ws and wss transports against
// the backend without moonbridge.
func wsRelay(backendAddr string) http.Handler {
	return ws.NewServer(ws.ServerConfig{}, func(c *ws.Conn, _ *http.Request) {
		be, err := net.Dial("tcp", backendAddr)
		if err != nil {
			return
		}
		done := make(chan struct{})
		go func() {
			io.Copy(c, be)
			c.Close()
			close(done)
		}()
		io.Copy(be, c)
		be.Close()
		<-done
	})
}

func TestWebSocketTransports(t *testing.T) {
	be := startBackend(t)
	for _, transport := range []string{TransportWS, TransportWSS} {
		srv := httptest.NewUnstartedServer(wsRelay(be.Addr()))
		if transport == TransportWSS {
			srv.StartTLS()
		} else {
			srv.Start()
		}
		url := transport + "://" + strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://") + "/mc"
		d, err := NewDialer(transport, url)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := play(ctx, d, traffic.Modded(), 100); err != nil {
			t.Errorf("%s: %v", transport, err)
		}
		cancel()
		srv.Close()
	}
	if be.Failures() != 0 {
		t.Errorf("backend refused %d sessions", be.Failures())
	}
}

func TestWebSocketTargetMustMatchTransport(t *testing.T) {
	for _, c := range [][2]string{{TransportWS, "wss://127.0.0.1:1/mc"}, {TransportWSS, "127.0.0.1:1"}} {
		if _, err := NewDialer(c[0], c[1]); err == nil {
			t.Errorf("%s to %s accepted", c[0], c[1])
		}
	}
}
