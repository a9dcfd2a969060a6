package phase

import (
	"context"
	"fmt"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/procfs"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// loginConcurrency bounds simultaneous logins in the idle mode, so that thousands of sessions
// do not arrive as one accept storm.
const loginConcurrency = 64

// IdleResult is the proxy's resident memory before and after opening idle sessions.
type IdleResult struct {
	Sessions    int     `json:"sessions"`
	BeforeKiB   int64   `json:"rss_before_kib"`
	AfterKiB    int64   `json:"rss_after_kib"`
	PerSessionB float64 `json:"rss_per_session_bytes"`
}

// Idle logs n sessions in through d, leaves them quiet for settle, and reports how much the
// proxy's RSS grew per session.
func Idle(ctx context.Context, d client.Dialer, p traffic.Profile, n, pid int, settle time.Duration) (IdleResult, error) {
	res := IdleResult{Sessions: n}
	before, err := procfs.Take(pid)
	if err != nil {
		return res, err
	}
	sessions := make([]*client.Session, n)
	defer closeAll(sessions)
	err = forEach(n, loginConcurrency, func(i int) error {
		var err error
		sessions[i], _, err = client.Login(ctx, d, p, sessionName(i), false)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("idle login: %w", err)
	}
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return res, ctx.Err()
	}
	after, err := procfs.Take(pid)
	if err != nil {
		return res, err
	}
	res.BeforeKiB, res.AfterKiB = before.RSSKiB, after.RSSKiB
	res.PerSessionB = float64(after.RSSKiB-before.RSSKiB) * 1024 / float64(n)
	return res, nil
}
