package flood

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/mc"
)

// Sink is the flood's own backend, behind the route the flood's hosts match, so that the
// players' fake backend (which checks every byte of a player) never sees a flood connection.
// It answers a server-list ping (status and pong) and a login (the fake backend's login
// answer), then waits for the other side to close.
type Sink struct {
	ln net.Listener
	wg sync.WaitGroup
}

// sinkStatus is the status answer: a server with no one on.
const sinkStatus = `{"version":{"name":"1.7.10","protocol":5},"players":{"max":100,"online":0},"description":{"text":"flood sink"}}`

// IsSinkStatus says whether a status answer carries the sink's description (live or cached,
// whatever else the proxy changed in it), not a text the proxy made up (its fallback).
func IsSinkStatus(status string) bool { return strings.Contains(status, `"text":"flood sink"`) }

// ListenSink starts a sink on addr.
func ListenSink(addr string) (*Sink, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Sink{ln: ln}
	s.wg.Go(s.accept)
	return s, nil
}

// Addr is where the sink listens.
func (s *Sink) Addr() string { return s.ln.Addr().String() }

// Close stops accepting; connections end as their clients (the proxy) close them.
func (s *Sink) Close() error {
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Sink) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go serveSink(c)
	}
}

// serveSink answers one connection; any error just ends it.
func serveSink(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 1024)
	hello, err := mc.ReadHello(r, 0)
	if err != nil || hello.Legacy != nil {
		return
	}
	switch hello.Handshake.NextState {
	case mc.NextStatus:
		err = answerStatus(c, r)
	case mc.NextLogin:
		var name string
		if name, err = mc.ReadParsed(r, mc.ParsePlayerName); err == nil {
			_, err = c.Write(login.AppendAnswer(nil, name))
		}
	}
	if err == nil {
		io.Copy(io.Discard, r)
	}
}

func answerStatus(c net.Conn, r *bufio.Reader) error {
	for {
		p, err := mc.ReadStatusPacket(r)
		if err != nil {
			return err
		}
		out := mc.AppendStatusResponse(nil, []byte(sinkStatus))
		if p.Ping {
			out = mc.AppendPong(nil, p.Payload)
		}
		if _, err := c.Write(out); err != nil {
			return err
		}
	}
}
