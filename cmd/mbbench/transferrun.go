package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
)

// transferRun is one drain-by-transfer measurement: players join through dialer, drain starts
// the drain (and says when it started), and each player must be back in play, moved to to,
// within wait of that.
type transferRun struct {
	dialer          client.Dialer
	players         int
	joinConcurrency int
	follow          client.FollowConfig
	drain           func(context.Context) (time.Time, error)
	wait            time.Duration
	to              string
	progress        io.Writer
}

func (t *transferRun) run(ctx context.Context) (transferReport, error) {
	followers, err := t.join(ctx)
	defer func() {
		for _, f := range followers {
			f.Close()
		}
	}()
	if err != nil {
		return transferReport{}, err
	}
	fmt.Fprintf(t.progress, "# all %d players in play\n", len(followers))
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	results := make([]client.FollowResult, len(followers))
	var wg sync.WaitGroup
	for i, f := range followers {
		wg.Go(func() { results[i] = f.Run(runCtx) })
	}
	start, err := t.drain(ctx)
	if err != nil {
		stop()
		wg.Wait()
		return transferReport{}, err
	}
	deadline := time.AfterFunc(time.Until(start.Add(t.wait)), stop)
	defer deadline.Stop()
	wg.Wait()
	return summarize(results, start, t.to), nil
}

// join joins every player, joinConcurrency at once; any failure fails the run, since the drain
// would then not be measured on the players asked for.
func (t *transferRun) join(ctx context.Context) ([]*client.Follower, error) {
	followers := make([]*client.Follower, t.players)
	errs := make([]error, t.players)
	slots := make(chan struct{}, t.joinConcurrency)
	var wg sync.WaitGroup
	for i := range followers {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			followers[i], errs[i] = client.JoinFollower(ctx, t.dialer, fmt.Sprintf("mbbench%05d", i), t.follow)
		})
	}
	wg.Wait()
	var joined []*client.Follower
	var first error
	for i, f := range followers {
		if errs[i] == nil {
			joined = append(joined, f)
		} else if first == nil {
			first = errs[i]
		}
	}
	if first != nil {
		return joined, fmt.Errorf("%d of %d players could not join: %w", t.players-len(joined), t.players, first)
	}
	return joined, nil
}
