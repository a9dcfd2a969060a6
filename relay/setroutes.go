package relay

import (
	"reflect"

	"github.com/moonbridge/moonbridge/relay/pool"
)

// SetRoutes makes routes those of every new connection and leaves every other setting as it is:
// the listeners keep their sockets, the block list its addresses, the login meter its queue and
// the limits their buckets. A route whose label, hosts, rewrite_host, backends, balance, health
// check and wake are unchanged keeps its pool (its backends' health, their session counts, the
// wake's state) and its status cache, and its checks go on; the checks of the other routes
// start afresh, every backend up until they say otherwise, and those of a route that is gone
// stop. Running sessions keep the route and backend they started with, so a backend no route
// names any more drains as after a Reload. When routes are invalid (NewRouter's checks, a token
// without Config.Tokens) or the server is not running, nothing changes and the error says why.
func (s *Server) SetRoutes(routes []Route) error {
	router, err := NewRouter(routes)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.changeable(); err != nil {
		return err
	}
	prev := s.settings()
	if err := router.needsVerifier(prev.Tokens); err != nil {
		return err
	}
	if err := router.needsWebSocket(prev.Listeners); err != nil {
		return err
	}
	s.attachPools(router.carry(prev.router))
	next := *prev
	next.Routes, next.router = routes, router
	s.attachLogins(&next)
	s.current.Store(&next)
	s.followRoutes(prev.router, router)
	return nil
}

// carry gives each route of r that prev has unchanged (samePool) prev's pool and status cache,
// and returns the pools r made for the others: those to attach.
func (r *Router) carry(prev *Router) (fresh []*pool.Pool) {
	old := map[string]*Route{}
	for i := range prev.routes {
		old[prev.routes[i].Label()] = &prev.routes[i]
	}
	for i := range r.routes {
		route := &r.routes[i]
		if was, ok := old[route.Label()]; ok && samePool(was, route) {
			route.pool, route.status = was.pool, was.status
			continue
		}
		fresh = append(fresh, route.pool)
	}
	return fresh
}

// samePool says whether two routes make the same pool: what pool.Config holds.
func samePool(a, b *Route) bool {
	return reflect.DeepEqual(a.poolConfig(), b.poolConfig())
}
