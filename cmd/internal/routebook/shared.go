package routebook

import (
	"fmt"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// SharedWriter is the persist of a book whose API routes the replicas share (package replicas):
// save gets them as the state file's text.
func SharedWriter(save func(text []byte) error) func([]config.Route) error {
	return func(routes []config.Route) error {
		text, err := config.MarshalRoutes(routes)
		if err != nil {
			return err
		}
		return save(text)
	}
}

// ApplyShared makes text, the routes API's routes another replica saved (SharedWriter), the
// book's API routes. Redis is trusted no more than the API: the text is parsed as strictly as
// the state file, and each route is merged as the API's own are, so what
// admin.routes_api.allow does not list, what fails a file route's checks and what clashes with
// a route before it is left out with its reason. A text that does not parse changes nothing.
func (b *Book) ApplyShared(text []byte) error {
	routes, err := config.ParseRoutes(text)
	if err != nil {
		return fmt.Errorf("the replicas' routes API routes: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	m, err := b.merge(b.file, routes, b.discovered)
	if err == nil {
		err = b.serve(m)
	}
	if err != nil {
		return err
	}
	b.api = routes
	b.commit(m)
	return nil
}
