package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// API is where the API server is and how moonbridge proves who it is and trusts the server.
type API struct {
	URL       string // https://HOST:PORT, or http:// (kubectl proxy, tests)
	TokenFile string // a bearer token, read for every request; "": none is sent
	CAFile    string // PEM authorities the server's certificate must chain to; "": the system's
}

// The service account's files, which the kubelet mounts into every pod that automounts its token.
const (
	ServiceAccountToken = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	ServiceAccountCA    = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
)

// ErrNotInCluster is InCluster outside a pod: the kubelet sets no KUBERNETES_SERVICE_HOST.
var ErrNotInCluster = errors.New("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set: not in a pod; set api_url")

// InCluster is the API as a pod reaches it: the address the kubelet puts in its environment,
// with the service account's token and authority.
func InCluster(getenv func(string) string) (API, error) {
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return API{}, ErrNotInCluster
	}
	return API{URL: "https://" + net.JoinHostPort(host, port), TokenFile: ServiceAccountToken, CAFile: ServiceAccountCA}, nil
}

// APIError is a response other than 200 OK, or an ERROR event of a watch.
type APIError struct {
	Code    int    // HTTP status; 410: the resourceVersion asked for is gone
	Reason  string // the Status's reason, e.g. Expired, Forbidden
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("kubernetes API: %d %s: %s", e.Code, e.Reason, e.Message)
}

// gone says whether err asks for a new list: the resourceVersion is older than the server keeps.
func gone(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Code == http.StatusGone
}

// status is the API's Status object, the body of an error response and of an ERROR event.
type status struct {
	Code    int    `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// client sends GETs to the API server.
type client struct {
	base      *url.URL
	tokenFile string
	http      *http.Client
}

func newClient(api API) (*client, error) {
	base, err := url.Parse(api.URL)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("kubernetes API URL %q: want https://HOST:PORT", api.URL)
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if api.CAFile != "" {
		pem, err := os.ReadFile(api.CAFile)
		if err != nil {
			return nil, fmt.Errorf("kubernetes CA: %w", err)
		}
		tlsConfig.RootCAs = x509.NewCertPool()
		if !tlsConfig.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("kubernetes CA %s: no PEM certificate in it", api.CAFile)
		}
	}
	// No client timeout: a watch lasts minutes. Each request has its context's deadline.
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConnsPerHost:   2,
	}
	return &client{base: base, tokenFile: api.TokenFile, http: &http.Client{Transport: transport}}, nil
}

// get asks for path with query and returns the body of a 200 response; any other is an
// *APIError.
func (c *client) get(ctx context.Context, path string, query url.Values) (io.ReadCloser, error) {
	u := c.base.JoinPath(path)
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if c.tokenFile != "" {
		token, err := os.ReadFile(c.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("kubernetes token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK {
		return resp.Body, nil
	}
	defer resp.Body.Close()
	return nil, responseError(resp)
}

// responseError reads the Status an error response carries, or keeps the HTTP status.
func responseError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var s status
	if json.Unmarshal(body, &s) != nil || s.Message == "" {
		s.Message = strings.TrimSpace(string(body))
	}
	if s.Reason == "" {
		s.Reason = http.StatusText(resp.StatusCode)
	}
	return &APIError{Code: resp.StatusCode, Reason: s.Reason, Message: s.Message}
}

func (c *client) close() { c.http.CloseIdleConnections() }
