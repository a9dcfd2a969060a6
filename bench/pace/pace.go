// Package pace plays a traffic.Schedule in real time: each write when it is due, and how late
// it started, which is how mbbench ladder tells a load generator that fell behind from a relay
// that did.
package pace

import (
	"context"
	"time"

	"github.com/moonbridge/moonbridge/bench/traffic"
)

// Run writes every event of s when it is due (start plus the event's At) until ctx ends,
// which is not an error, or write fails. late gets, for every write, how long after its due
// time it began.
func Run(ctx context.Context, start time.Time, s traffic.Schedule, write func(traffic.Event) error, late func(time.Duration)) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var buf []byte
	for {
		ev := s.Next(buf[:0])
		buf = ev.Bytes
		due := start.Add(ev.At)
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			return nil
		}
		late(time.Since(due))
		if err := write(ev); err != nil {
			return err
		}
	}
}
