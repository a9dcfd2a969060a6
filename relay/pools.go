package relay

import (
	"context"
	"errors"
	"net"

	"github.com/moonbridge/moonbridge/relay/pool"
)

// attachPools gives the pools of set's routes the server's log, metrics and goroutines; New
// and Reload call it before set serves a session.
func (s *Server) attachPools(set *settings) {
	env := pool.Env{Log: s.log, Metrics: s.backends, Go: s.goWaited, Spawn: s.spawn}
	for _, p := range set.router.pools() {
		p.Attach(env)
	}
}

// startHealthChecks runs the health checks and idle stops of set's pools until set is replaced
// by a Reload (its stopChecks) or the server closes (s.ctx).
func (s *Server) startHealthChecks(set *settings) {
	ctx, stop := context.WithCancel(s.ctx)
	set.stopChecks = stop
	for _, p := range set.router.pools() {
		p.Start(ctx)
	}
}

// goWaited runs f on s.wg, which Close waits for.
func (s *Server) goWaited(f func()) {
	s.wg.Add(1)
	go func() { defer s.wg.Done(); f() }()
}

// spawn runs f on a goroutine Close waits for, as it waits for sessions; false, and nothing
// runs, once the server is closing.
func (s *Server) spawn(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return false
	}
	s.live.Add(1) // under mu, before Close can reach live.Wait, as track does
	go func() { defer s.live.Done(); f() }()
	return true
}

// wakeDial is a login's second chance on a route that wakes its server, after no backend took
// it (dialErr): it starts the server, then with Hold waits for it and dials again; without Hold
// it ends with pool.ErrStarting, for the starting message. A status ping wakes nothing.
func (s *session) wakeDial(route *Route, req pool.Request, login bool, dialErr error) (net.Conn, pool.Choice, error) {
	if !login {
		return nil, pool.Choice{}, dialErr
	}
	done, hold := route.pool.Wake(s.srv.ctx)
	if !hold {
		return nil, pool.Choice{}, errors.Join(pool.ErrStarting, dialErr)
	}
	select {
	case <-done:
	case <-s.srv.ctx.Done():
		return nil, pool.Choice{}, errShutdown
	}
	conn, chosen, err := route.pool.Dial(s.srv.ctx, req)
	if err != nil {
		return nil, pool.Choice{}, errors.Join(pool.ErrStarting, err)
	}
	return conn, chosen, nil
}
