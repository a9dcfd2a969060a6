package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// pinnedVersion is the API version asked for: every Docker engine since 20.10 and podman's
// service speak it, and the calls made here have not changed since. An engine whose oldest
// version is newer (Docker 29 refuses below 1.44) is asked in its oldest instead.
const pinnedVersion = "1.41"

// Client talks to one engine's API over HTTP/1.1. It is safe for concurrent use.
type Client struct {
	http *http.Client
	base string // http://docker for a socket, http://host:port over TCP

	mu      sync.Mutex
	version string // as negotiated; "" until the first call
}

// NewClient talks to the engine at e. It connects at the first call.
func NewClient(e Endpoint) *Client {
	transport := &http.Transport{MaxIdleConnsPerHost: 2}
	base := "http://" + e.Address
	if e.Network == "unix" {
		path := e.Address
		transport.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		}
		base = "http://docker"
	}
	return &Client{http: &http.Client{Transport: transport}, base: base}
}

// Close closes the connections the client keeps open between calls.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// APIError is an answer of the engine other than success, with the message it gave.
type APIError struct {
	Method, Path string
	Status       int
	Message      string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Message)
}

// call sends method path?query in the negotiated version and returns the response of a
// success (2xx, or 304 for a start or stop with nothing to do); the caller closes its body.
func (c *Client) call(ctx context.Context, method, path string, query url.Values) (*http.Response, error) {
	version, err := c.negotiated(ctx)
	if err != nil {
		return nil, err
	}
	return c.send(ctx, method, "/v"+version+path, query)
}

func (c *Client) send(ctx context.Context, method, path string, query url.Values) (*http.Response, error) {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 || resp.StatusCode == http.StatusNotModified {
		return resp, nil
	}
	defer resp.Body.Close()
	var body struct{ Message string }
	text, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if json.Unmarshal(text, &body) != nil || body.Message == "" {
		body.Message = strings.TrimSpace(string(text))
	}
	return nil, &APIError{Method: method, Path: path, Status: resp.StatusCode, Message: body.Message}
}

// getJSON decodes the answer to GET path?query into v.
func (c *Client) getJSON(ctx context.Context, path string, query url.Values, v any) error {
	resp, err := c.call(ctx, http.MethodGet, path, query)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// negotiated is the API version to ask in, from the engine's /version the first time.
func (c *Client) negotiated(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != "" {
		return c.version, nil
	}
	resp, err := c.send(ctx, http.MethodGet, "/version", nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct{ ApiVersion, MinAPIVersion string }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", fmt.Errorf("GET /version: %w", err)
	}
	c.version = chooseVersion(v.MinAPIVersion, v.ApiVersion)
	return c.version, nil
}

// chooseVersion is pinnedVersion, or the engine's oldest when that is newer.
func chooseVersion(oldest, newest string) string {
	if newer(oldest, pinnedVersion) {
		return oldest
	}
	if newest != "" && newer(pinnedVersion, newest) {
		return newest // an engine older than 20.10: ask in its own version
	}
	return pinnedVersion
}

// newer says whether API version a ("1.44") is newer than b; a version that does not parse
// is not.
func newer(a, b string) bool {
	am, an, ok1 := splitVersion(a)
	bm, bn, ok2 := splitVersion(b)
	return ok1 && ok2 && (am > bm || am == bm && an > bn)
}

func splitVersion(v string) (major, minor int, ok bool) {
	ma, mi, found := strings.Cut(v, ".")
	major, err1 := strconv.Atoi(ma)
	minor, err2 := strconv.Atoi(mi)
	return major, minor, found && err1 == nil && err2 == nil
}
