package relay

import (
	"fmt"
	"slices"
	"strings"
)

// A route's Paths are served on every ws and wss listener beside the listener's own WebSocket
// path (ws.ServerConfig.Path): an upgrade on a path some route names is taken, with the access
// checks of the routes on that path (admitAccess), and any other path gets 404. The served paths
// are those of the current routes, so they follow Reload and SetRoutes.

// CheckPath says why p cannot be a route's WebSocket path, or nil: the upgrade compares it with
// the request's path as net/http decodes it, so a path that does not start with "/", or holds a
// query, a fragment, a %-escape, a space or a control character, would never match a request.
func CheckPath(p string) error {
	if !strings.HasPrefix(p, "/") || strings.ContainsFunc(p, unservablePathRune) {
		return fmt.Errorf("path %q: want a request path such as /creative: starting with /, "+
			"without query, fragment, %%-escapes or spaces", p)
	}
	return nil
}

func unservablePathRune(r rune) bool {
	return r <= ' ' || r == 0x7f || strings.ContainsRune("?#%", r)
}

// namedPaths is the set of every path the routes name.
func namedPaths(routes []Route) map[string]bool {
	set := map[string]bool{}
	for i := range routes {
		for _, p := range routes[i].Paths {
			set[p] = true
		}
	}
	return set
}

// needsWebSocket refuses routes with paths when no listener serves ws or wss: no player could
// reach them.
func (r *Router) needsWebSocket(listeners []Listener) error {
	if slices.ContainsFunc(listeners, servesWebSocket) {
		return nil
	}
	for i := range r.routes {
		if route := &r.routes[i]; len(route.Paths) > 0 {
			return fmt.Errorf("route %s: paths %v are WebSocket request paths, and no listener serves ws or wss",
				route.Label(), route.Paths)
		}
	}
	return nil
}

func servesWebSocket(l Listener) bool {
	return slices.Contains(l.Protocols, WS) || slices.Contains(l.Protocols, WSS)
}

// servesPath says whether the listener upgrades a request for path besides its own WebSocket
// path: one a current route names.
func (ln *listener) servesPath(path string) bool {
	return ln.srv.settings().router.paths[path]
}
