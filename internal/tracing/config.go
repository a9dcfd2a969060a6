package tracing

import (
	"crypto/tls"
	"errors"
	"net/url"
	"time"
)

// Config is what a Tracer needs; cmd/moonbridge makes it from the tracing section of the file.
type Config struct {
	// Endpoint is the collector's OTLP/HTTP URL (http:// or https://); a URL without a path
	// gets /v1/traces. "" is tracing off (New returns nil).
	Endpoint string
	// TLS is the client's TLS configuration for an https endpoint (its CAs); nil: the system's.
	TLS *tls.Config
	// Headers go with every export request (an API key).
	Headers map[string]string
	// SampleRatio is the share of joins traced, 0 to 1.
	SampleRatio float64
	// ServiceName and ServiceVersion name the process in the collector (service.name,
	// service.version).
	ServiceName, ServiceVersion string
	// TrustParent makes a join the child of the traceparent header of its WebSocket upgrade,
	// whose sampled flag then decides; the relay passes the header on only from a trusted proxy.
	// False: the header is ignored, so a client can neither pick sampling nor join a trace.
	TrustParent bool
	// StatusPings traces server-list pings too; false: only connections that log in (or never
	// said which) are exported.
	StatusPings bool
	// QueueSize bounds the spans waiting for export; past it a span is dropped and counted.
	QueueSize int
	// ExportTimeout bounds one export request.
	ExportTimeout time.Duration
}

// Defaults of the keys cmd/internal/config declares.
const (
	DefaultServiceName   = "moonbridge"
	DefaultSampleRatio   = 1.0
	DefaultQueueSize     = 2048
	DefaultExportTimeout = 10 * time.Second
)

// defaultPath is where a collector takes OTLP/HTTP traces.
const defaultPath = "/v1/traces"

// exportURL is the endpoint with the default path when it has none.
func (c Config) exportURL() (string, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", errors.New("tracing endpoint " + c.Endpoint + " is not an http:// or https:// URL")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = defaultPath
	}
	return u.String(), nil
}
