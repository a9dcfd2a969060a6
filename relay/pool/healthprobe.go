package pool

import (
	"context"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
)

// statusProbeProtocol is the handshake's protocol version in a status check: -1 is the
// convention of pingers that speak no particular version, and servers answer it.
const statusProbeProtocol = -1

// probe runs one health check of m within ctx's deadline; nil means the backend passed.
func (p *Pool) probe(ctx context.Context, m *member) error {
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", m.Addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if p.cfg.HealthCheck.Mode != HealthStatus {
		return nil
	}
	// Ends the exchange at the check's timeout, or at once when the server closes.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	return p.statusPing(conn, m.Backend)
}

// statusPing asks conn's server for its server-list entry, as a client would (with a PROXY
// LOCAL header first when the backend wants PROXY headers, which says "a health check, no
// client"), and checks the answer is one.
func (p *Pool) statusPing(conn net.Conn, b Backend) error {
	host, port := p.cfg.probeHost(b.Addr)
	hs := mc.Handshake{Protocol: statusProbeProtocol, Port: port, NextState: mc.NextStatus}
	request, err := preamble(b, clientaddr.Header{Command: clientaddr.Local}, mc.AppendStatusRequest(hs.AppendFrame(nil, host)))
	if err != nil {
		return err
	}
	if _, err := conn.Write(request); err != nil {
		return err
	}
	_, body, err := mc.NewFrameReader(conn, 4096).ReadFrame()
	if err != nil {
		return err
	}
	_, err = mc.ParseStatusResponse(body)
	return err
}

// probeHost is the host and port a status check's handshake names: what the backend gets from
// players of this route (the rewritten host, else the route's first exact host), so a server
// that routes by host answers as it would for them; the backend's own address otherwise.
func (c Config) probeHost(addr string) (string, uint16) {
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.ParseUint(portText, 10, 16)
	switch {
	case c.RewriteHost != "":
		host = c.RewriteHost
	case !strings.Contains(c.Hosts[0], "*"):
		host = c.Hosts[0]
	}
	return host, uint16(port)
}
