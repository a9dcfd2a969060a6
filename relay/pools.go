package relay

import (
	"context"
	"errors"
	"net"

	"github.com/moonbridge/moonbridge/relay/pool"
)

// attachPools gives pools the server's log, metrics and goroutines; New, Reload and SetRoutes
// call it before a pool serves a session.
func (s *Server) attachPools(pools []*pool.Pool) {
	env := pool.Env{Log: s.log, Metrics: s.backends, Go: s.goWaited, Spawn: s.spawn}
	for _, p := range pools {
		p.Attach(env)
	}
}

// followRoutes moves the backends' metrics, the login events and the health checks from prev's
// routes to next's, once next is the current router (Reload, SetRoutes). Called under s.mu.
func (s *Server) followRoutes(prev, next *Router) {
	s.backends.Follow(prev.pools(), next.pools())
	s.events.follow(next)
	s.followChecks(next)
}

// healthChecks are the running health checks and idle stops of the current routes' pools, each
// pool's own, so that SetRoutes leaves those of an unchanged route running; guarded by
// Server.mu.
type healthChecks map[*pool.Pool]context.CancelFunc

// followChecks makes the checks run for router's pools, until the pool leaves the current
// routes (a Reload or SetRoutes without it) or the server closes (s.ctx): those of a pool that
// runs them already go on, those of a pool router does not have stop. Called under s.mu.
func (s *Server) followChecks(router *Router) {
	wanted := map[*pool.Pool]bool{}
	for _, p := range router.pools() {
		wanted[p] = true
		if _, running := s.checks[p]; !running {
			ctx, stop := context.WithCancel(s.ctx)
			s.checks[p] = stop
			p.Start(ctx)
		}
	}
	for p, stop := range s.checks {
		if !wanted[p] {
			stop()
			delete(s.checks, p)
		}
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
