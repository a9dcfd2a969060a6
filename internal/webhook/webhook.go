// Package webhook posts JSON events to an operator's URL: the relay's login events and the wake
// of a sleeping server.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// DefaultTimeout bounds one post when its caller gives no timeout.
const DefaultTimeout = 5 * time.Second

// Post posts v as JSON to url within timeout (DefaultTimeout when 0); an answer other than 2xx
// is an error.
func Post(ctx context.Context, client *http.Client, url string, timeout time.Duration, v any) error {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}
