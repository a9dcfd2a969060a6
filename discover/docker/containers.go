package docker

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// container is one entry of GET /containers/json, as far as routes need it.
type container struct {
	ID              string `json:"Id"`
	Names           []string
	Labels          map[string]string
	State           string // created, running, paused, restarting, exited, dead
	NetworkSettings struct {
		Networks map[string]network
	}
}

// network is a container's attachment to one network; a stopped container's has no address.
type network struct {
	IPAddress         string
	GlobalIPv6Address string
}

// name is the container's name without the API's leading slash.
func (c container) name() string {
	if len(c.Names) == 0 {
		return c.ID
	}
	return strings.TrimPrefix(c.Names[0], "/")
}

// labelled lists every container, running or not, that has the label key.
func (c *Client) labelled(ctx context.Context, key string) ([]container, error) {
	filters, _ := json.Marshal(map[string][]string{"label": {key}})
	var out []container
	err := c.getJSON(ctx, "/containers/json", url.Values{"all": {"1"}, "filters": {string(filters)}}, &out)
	return out, err
}

// post sends POST path and reads nothing back.
func (c *Client) post(ctx context.Context, path string) error {
	resp, err := c.call(ctx, http.MethodPost, path, nil)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Container is a container the engine at Endpoint starts and stops for a route's wake (it is
// relay/pool's Runtime). It is a plain value, so that two configurations naming the same
// container compare equal; each call connects anew, as a wake is rare.
type Container struct {
	Endpoint Endpoint
	ID       string // the container's ID or name
}

// Start starts the container; one already running is not an error.
func (c Container) Start(ctx context.Context) error { return c.post(ctx, "start") }

// Stop stops the container, the engine waiting its stop timeout (docker run --stop-timeout;
// 10 s by default) before it kills it; one already stopped is not an error.
func (c Container) Stop(ctx context.Context) error { return c.post(ctx, "stop") }

func (c Container) post(ctx context.Context, action string) error {
	client := NewClient(c.Endpoint)
	defer client.Close()
	return client.post(ctx, "/containers/"+url.PathEscape(c.ID)+"/"+action)
}
