package cluster

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// etcdHealthy asks etcd's /health.
func (c *Cluster) etcdHealthy(ctx context.Context) bool {
	var health struct {
		Health string `json:"health"`
	}
	return c.etcdCall(ctx, http.MethodGet, "/health", nil, &health) == nil && health.Health == "true"
}

// apiReady asks kube-apiserver's /readyz as the admin: every start hook has run (RBAC's
// bootstrap roles among them).
func (c *Cluster) apiReady(ctx context.Context) bool {
	client, err := c.httpClient()
	if err != nil {
		return false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/readyz", nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+c.AdminToken)
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == http.StatusOK
}

// httpClient trusts the serving certificate.
func (c *Cluster) httpClient() (*http.Client, error) {
	pem, err := os.ReadFile(c.CAFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	return &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}, nil
}

// Compact compacts etcd's history up to its current revision, as the API server itself does
// every few minutes, and returns that revision: a watch from an older resourceVersion that
// reaches etcd is answered 410 Gone from now on.
func (c *Cluster) Compact(ctx context.Context) (int64, error) {
	// A range over no key answers with the store's current revision in its header.
	var status struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	if err := c.etcdCall(ctx, http.MethodPost, "/v3/kv/range", map[string]any{"key": "AA=="}, &status); err != nil {
		return 0, err
	}
	revision, err := strconv.ParseInt(status.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("etcd revision %q: %w", status.Header.Revision, err)
	}
	compact := map[string]any{"revision": revision, "physical": true}
	return revision, c.etcdCall(ctx, http.MethodPost, "/v3/kv/compaction", compact, &struct{}{})
}

// etcdCall sends body as JSON to etcd's HTTP gateway and decodes the answer into out.
func (c *Cluster) etcdCall(ctx context.Context, method, path string, body, out any) error {
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		in = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.EtcdURL+path, in)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s %s: %s: %s", method, path, resp.Status, answer)
	}
	return json.Unmarshal(answer, out)
}
