package routebook

import (
	"errors"
	"fmt"
	"os"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/atomicfile"
)

// The routes API's state file (admin.routes_api.state_file): the API's routes as a routes:
// list, the config file's keys, written whole after each change and read at start, so that a
// restart keeps them.

// LoadAPIRoutes reads the API's routes from the state file: none when the API is off, has no
// state file, or its file does not exist yet.
func LoadAPIRoutes(api config.RoutesAPI) ([]config.Route, error) {
	if !api.Enabled || api.StateFile == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(api.StateFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("admin.routes_api.state_file: %w", err)
	}
	routes, err := config.ParseRoutes(raw)
	if err != nil {
		return nil, fmt.Errorf("admin.routes_api.state_file %s (fix it, or remove it to start without the API's routes):\n%w", api.StateFile, err)
	}
	return routes, nil
}

// StateWriter is what writes the API's routes after a change: to the state file, or nothing
// (nil) without one.
func StateWriter(api config.RoutesAPI) func([]config.Route) error {
	if !api.Enabled || api.StateFile == "" {
		return nil
	}
	return func(routes []config.Route) error { return saveAPIRoutes(api.StateFile, routes) }
}

// saveAPIRoutes writes routes to path whole (atomicfile), so that a crash leaves the old file
// or the new one, never half of one.
func saveAPIRoutes(path string, routes []config.Route) error {
	text, err := config.MarshalRoutes(routes)
	if err != nil {
		return err
	}
	header := []byte("# The routes API's routes (admin.routes_api.state_file), written by moonbridge.\n")
	if err := atomicfile.Write(path, append(header, text...)); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	return nil
}
