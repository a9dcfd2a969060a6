package phase

import (
	"errors"
	"sync"

	"github.com/moonbridge/moonbridge/bench/client"
)

// forEach runs f(0..n-1) with at most limit running at once and joins their errors.
func forEach(n, limit int, f func(i int) error) error {
	errs := make([]error, n)
	slots := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			errs[i] = f(i)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// each runs f on every session at once.
func each(sessions []*client.Session, f func(*client.Session) error) error {
	return forEach(len(sessions), len(sessions), func(i int) error { return f(sessions[i]) })
}

func closeAll(sessions []*client.Session) {
	for _, s := range sessions {
		if s != nil {
			s.Close()
		}
	}
}
