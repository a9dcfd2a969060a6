package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// event is one object of the GET /events stream. Which actions there are differs between
// engines (Docker's destroy is podman's remove), so any container or network event is taken as
// a reason to list the containers again.
type event struct {
	Type   string
	Action string
	Actor  struct{ ID string }
}

// eventStream is an open GET /events: the engine writes one JSON object per event for as long
// as the request lasts.
type eventStream struct {
	body io.ReadCloser
	dec  *json.Decoder
}

// events subscribes to the events of containers and of their networks (connect, disconnect,
// which change addresses). It returns once the engine has answered, so that no event after it
// is missed.
func (c *Client) events(ctx context.Context) (*eventStream, error) {
	filters, _ := json.Marshal(map[string][]string{"type": {"container", "network"}})
	resp, err := c.call(ctx, http.MethodGet, "/events", url.Values{"filters": {string(filters)}})
	if err != nil {
		return nil, err
	}
	return &eventStream{body: resp.Body, dec: json.NewDecoder(resp.Body)}, nil
}

// next is the stream's next event; an error means it has ended.
func (s *eventStream) next() (event, error) {
	var e event
	if err := s.dec.Decode(&e); err != nil {
		return event{}, fmt.Errorf("events stream: %w", err)
	}
	return e, nil
}

func (s *eventStream) Close() error { return s.body.Close() }
