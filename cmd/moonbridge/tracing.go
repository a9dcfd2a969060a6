package main

import (
	"context"
	"crypto/tls"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/buildinfo"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/tracing"
)

// startTracing starts the export of joins' traces the tracing section asks for: nil while its
// endpoint is "" (off). The CA and headers files are read here, once; the section takes a restart.
func startTracing(cfg config.Tracing, log zerolog.Logger) (*tracing.Tracer, error) {
	if cfg.Endpoint == "" {
		return nil, nil
	}
	var headers map[string]string
	if cfg.HeadersFile != "" {
		var err error
		if headers, err = config.ReadHeaders(cfg.HeadersFile); err != nil {
			return nil, err
		}
	}
	var tlsCfg *tls.Config
	if cfg.CAFile != "" {
		pool, err := config.ReadCA(cfg.CAFile)
		if err != nil {
			return nil, err
		}
		tlsCfg = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	tracer, err := tracing.New(tracing.Config{
		Endpoint: cfg.Endpoint, TLS: tlsCfg, Headers: headers, SampleRatio: cfg.SampleRatio,
		ServiceName: cfg.ServiceName, ServiceVersion: buildinfo.Collect().Version, TrustParent: cfg.TrustParent,
		StatusPings: cfg.StatusPings, QueueSize: cfg.QueueSize, ExportTimeout: cfg.ExportTimeout,
	}, log.With().Str("component", "tracing").Logger())
	if err == nil {
		log.Info().Str("endpoint", cfg.Endpoint).Float64("sample_ratio", cfg.SampleRatio).
			Bool("trust_parent", cfg.TrustParent).Msg("tracing joins")
	}
	return tracer, err
}

// stopTracing exports what is queued, for at most one export timeout, and stops the exporter.
func stopTracing(tracer *tracing.Tracer, cfg config.Tracing, log zerolog.Logger) {
	if tracer == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ExportTimeout)
	defer cancel()
	if err := tracer.Shutdown(ctx); err != nil {
		log.Warn().Err(err).Msg("tracing: spans still queued at exit were dropped")
	}
	st := tracer.Stats()
	log.Info().Uint64("exported", st.Exported).Uint64("dropped", st.Dropped).Uint64("failed", st.Failed).Msg("tracing stopped")
}

// withTracer is the admin port's collectors with the tracer's span counts when tracing is on.
func withTracer(tracer *tracing.Tracer, metrics ...prometheus.Collector) []prometheus.Collector {
	if tracer == nil {
		return metrics
	}
	return append(metrics, tracer)
}
