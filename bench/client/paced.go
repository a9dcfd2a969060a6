package client

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/moonbridge/moonbridge/bench/pace"
	"github.com/moonbridge/moonbridge/bench/traffic"
	"github.com/moonbridge/moonbridge/mc"
)

// pacedReadBuffer is the first frame buffer of a paced session; it grows to the largest frame
// (a chunk) and no further.
const pacedReadBuffer = 4 << 10

// probeRing is how many keepalives may be in flight before a send time is overwritten: a
// keepalive answered more than a minute late is timed wrongly, and such a run fails anyway.
const probeRing = 64

// Pace plays paced traffic after Login until ctx ends, which returns nil, or the session fails:
// a writer follows p.Up, and the reader checks everything that comes down and gives rtt the
// round trip of every keepalive. late gets how late each write began.
func (s *Session) Pace(ctx context.Context, p *traffic.Paced, rtt, late func(time.Duration)) error {
	s.got, s.want = nil, nil // the login's buffers
	var sent [probeRing]atomic.Int64
	wctx, stopWriter := context.WithCancel(ctx)
	werr := make(chan error, 1)
	go func() {
		werr <- pace.Run(wctx, time.Now(), p.Up(s.name), func(ev traffic.Event) error {
			if ev.Probe {
				sent[ev.ProbeID%probeRing].Store(time.Now().UnixNano())
			}
			_, err := s.stream.Write(ev.Bytes)
			return err
		}, late)
	}()
	stop := context.AfterFunc(ctx, func() { s.stream.Close() })
	rerr := s.readPaced(p, &sent, rtt)
	stop()
	stopWriter()
	s.stream.Close() // unblocks a write to a relay that stopped reading
	err := <-werr
	switch {
	case ctx.Err() != nil:
		return nil
	case rerr != nil:
		return rerr // the writer's error, if any, follows from it
	}
	return err
}

// readPaced reads frames until the stream fails: keepalive echoes in the order sent, every
// other frame checked against the backend's schedule.
func (s *Session) readPaced(p *traffic.Paced, sent *[probeRing]atomic.Int64, rtt func(time.Duration)) error {
	r := mc.NewFrameReader(s.r, pacedReadBuffer)
	check := p.NewDownCheck(s.name)
	var next int32
	for {
		frame, body, err := r.ReadFrame()
		if err != nil {
			return err
		}
		id, ok := traffic.KeepAliveID(body)
		if !ok {
			if err := check.Frame(frame); err != nil {
				return fmt.Errorf("client %s: %w", s.name, err)
			}
			continue
		}
		if id != next {
			return &traffic.SequenceError{Profile: p.Name(), Detail: fmt.Sprintf("client %s: keepalive %d came back, want %d", s.name, id, next)}
		}
		rtt(time.Duration(time.Now().UnixNano() - sent[id%probeRing].Load()))
		next++
	}
}
