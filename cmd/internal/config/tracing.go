package config

import (
	"bufio"
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/internal/tracing"
)

// Tracing exports OpenTelemetry traces of joins over OTLP/HTTP (internal/tracing, documented in
// docs/metrics.md); off while Endpoint is "". It takes a restart.
type Tracing struct {
	// Endpoint is the collector's OTLP/HTTP URL: http:// (plain) or https://; without a path,
	// /v1/traces.
	Endpoint string `yaml:"endpoint"`
	// CAFile holds the PEM certificates an https endpoint's is checked against; "": the
	// system's.
	CAFile string `yaml:"ca_file"`
	// HeadersFile holds "Name: value" lines sent with every export (an API key), kept out of
	// the config file; "": none.
	HeadersFile string `yaml:"headers_file"`
	// SampleRatio is the share of joins traced, 0 to 1.
	SampleRatio float64 `yaml:"sample_ratio"`
	// ServiceName is service.name in the collector.
	ServiceName string `yaml:"service_name"`
	// TrustParent makes a WebSocket join the child of its traceparent header when a trusted
	// proxy (trusted_proxies, with forward_secret when set) sent it; otherwise it is ignored.
	TrustParent bool `yaml:"trust_parent"`
	// StatusPings traces server-list pings too.
	StatusPings bool `yaml:"status_pings"`
	// QueueSize bounds the spans waiting for export; more are dropped and counted.
	QueueSize int `yaml:"queue_size"`
	// ExportTimeout bounds one export, and the flush at shutdown.
	ExportTimeout time.Duration `yaml:"export_timeout"`
}

func defaultTracing() Tracing {
	return Tracing{SampleRatio: tracing.DefaultSampleRatio, ServiceName: tracing.DefaultServiceName,
		QueueSize: tracing.DefaultQueueSize, ExportTimeout: tracing.DefaultExportTimeout}
}

// validate checks the section: the URL, the files (read as serve reads them), the bounds.
func (t Tracing) validate() []error {
	var errs []error
	if t.Endpoint != "" {
		errs = append(errs, httpURL("tracing.endpoint", t.Endpoint))
	}
	if t.CAFile != "" {
		if u, err := url.Parse(t.Endpoint); err == nil && u.Scheme != "https" {
			errs = append(errs, invalid("tracing.ca_file", "is for an https:// endpoint; tracing.endpoint is %q", t.Endpoint))
		}
		if _, err := ReadCA(t.CAFile); err != nil {
			errs = append(errs, invalid("tracing.ca_file", "%v", err))
		}
	}
	if t.HeadersFile != "" {
		if _, err := ReadHeaders(t.HeadersFile); err != nil {
			errs = append(errs, invalid("tracing.headers_file", "%v", err))
		}
	}
	if t.SampleRatio < 0 || t.SampleRatio > 1 {
		errs = append(errs, invalid("tracing.sample_ratio", "%v is not between 0 and 1", t.SampleRatio))
	}
	if strings.TrimSpace(t.ServiceName) == "" {
		errs = append(errs, invalid("tracing.service_name", "must not be empty"))
	}
	return append(errs, mustBePositive(map[string]int64{
		"tracing.queue_size": int64(t.QueueSize), "tracing.export_timeout": int64(t.ExportTimeout)}, "")...)
}

// ReadCA reads the PEM certificates of path into a pool.
func ReadCA(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", path, pathErrorReason(err))
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New(path + " has no PEM certificate")
	}
	return pool, nil
}

// ReadHeaders reads "Name: value" lines (blank lines and lines starting with # skipped).
func ReadHeaders(path string) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", path, pathErrorReason(err))
	}
	headers := map[string]string{}
	lines := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; lines.Scan(); n++ {
		line := strings.TrimSpace(lines.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || !isHeaderName(name) || value == "" {
			return nil, fmt.Errorf("%s line %d: want \"Name: value\" with an HTTP header name", path, n)
		}
		headers[name] = value
	}
	return headers, lines.Err()
}
