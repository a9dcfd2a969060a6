package client

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/bench/traffic"
)

// Run plays round trips first to first+n-1 with up to window in flight, appending each round
// trip's time from its first write to its last checked byte to rtts. It returns the frames
// sent and received (both directions count, as in every bench/results/ record). A writer
// goroutine sends while this one reads, so a large answer never waits on a blocked write.
func (s *Session) Run(ctx context.Context, first, n uint64, window int, rtts []time.Duration) ([]time.Duration, int64, error) {
	credits := make(chan struct{}, window)
	for range window {
		credits <- struct{}{}
	}
	sent := make(chan time.Time, window)
	done := make(chan struct{})
	var werr error
	var sentFrames int64
	var wg sync.WaitGroup
	wg.Go(func() {
		if sentFrames, werr = s.writeLoop(first, n, credits, sent, done); werr != nil {
			s.stream.Close() // unblocks the reader waiting for answers that cannot come
		}
	})
	stop := context.AfterFunc(ctx, func() { s.stream.Close() })
	rtts, frames, rerr := s.readLoop(first, n, credits, sent, rtts)
	stop()
	if rerr != nil {
		s.stream.Close() // unblocks a write stuck on a peer that stopped reading
	}
	close(done)
	wg.Wait()
	frames += sentFrames
	switch {
	case ctx.Err() != nil:
		return rtts, frames, ctx.Err()
	case werr != nil && errors.Is(rerr, net.ErrClosed):
		return rtts, frames, werr // the writer failed first and closed the stream
	case rerr != nil:
		return rtts, frames, rerr // the writer's error, if any, follows from it
	}
	return rtts, frames, werr
}

func (s *Session) writeLoop(first, n uint64, credits <-chan struct{}, sent chan<- time.Time, done <-chan struct{}) (int64, error) {
	var req traffic.Request
	var frames int64
	for seq := first; seq < first+n; seq++ {
		select {
		case <-credits:
		case <-done:
			return frames, nil
		}
		s.profile.Request(seq, &req)
		sent <- time.Now()
		if err := s.writeRequest(&req); err != nil {
			return frames, err
		}
		frames += int64(req.Frames)
	}
	return frames, nil
}

// writeRequest sends the round trip in one write when coalescing, else one write per unit.
func (s *Session) writeRequest(req *traffic.Request) error {
	if s.coalesce {
		_, err := s.stream.Write(req.Bytes)
		return err
	}
	start := 0
	for _, end := range req.Units {
		if _, err := s.stream.Write(req.Bytes[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

func (s *Session) readLoop(first, n uint64, credits chan<- struct{}, sent <-chan time.Time, rtts []time.Duration) ([]time.Duration, int64, error) {
	var frames int64
	for seq := first; seq < first+n; seq++ {
		var respFrames int
		s.want, respFrames = s.profile.Response(s.want[:0], seq)
		if err := s.expect("round trip", seq, s.want); err != nil {
			return rtts, frames, err
		}
		rtts = append(rtts, time.Since(<-sent))
		credits <- struct{}{}
		frames += int64(respFrames)
	}
	return rtts, frames, nil
}
