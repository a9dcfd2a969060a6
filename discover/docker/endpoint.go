package docker

import (
	"fmt"
	"net"
	"strings"
)

// DefaultEndpoint is the Docker engine's socket; podman serves the same API on
// unix:///run/podman/podman.sock (`podman system service`).
const DefaultEndpoint = "unix:///var/run/docker.sock"

// Endpoint is where the engine's API listens: unix:///path/to/socket or tcp://host:port (plain
// HTTP, for an engine on a trusted network; the API has no authentication of its own).
type Endpoint struct {
	Network string // "unix" or "tcp"
	Address string // the socket's path, or host:port
}

// EndpointError is an endpoint that is neither unix:///path nor tcp://host:port.
type EndpointError struct{ Text string }

func (e *EndpointError) Error() string {
	return fmt.Sprintf("%q is not unix:///path/to/socket or tcp://host:port", e.Text)
}

// ParseEndpoint reads unix:///path or tcp://host:port.
func ParseEndpoint(text string) (Endpoint, error) {
	switch {
	case strings.HasPrefix(text, "unix://") && len(text) > len("unix://"):
		return Endpoint{Network: "unix", Address: strings.TrimPrefix(text, "unix://")}, nil
	case strings.HasPrefix(text, "tcp://"):
		addr := strings.TrimPrefix(text, "tcp://")
		if host, port, err := net.SplitHostPort(addr); err == nil && host != "" && port != "" {
			return Endpoint{Network: "tcp", Address: addr}, nil
		}
	}
	return Endpoint{}, &EndpointError{Text: text}
}

func (e Endpoint) String() string {
	if e.Network == "" {
		return ""
	}
	return e.Network + "://" + e.Address
}

// UnmarshalText parses the config file's endpoint.
func (e *Endpoint) UnmarshalText(text []byte) error {
	parsed, err := ParseEndpoint(string(text))
	if err != nil {
		return err
	}
	*e = parsed
	return nil
}

// MarshalText writes it back as the file had it.
func (e Endpoint) MarshalText() ([]byte, error) { return []byte(e.String()), nil }
