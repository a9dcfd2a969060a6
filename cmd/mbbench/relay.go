package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/target"
)

// relayUnderTest is the fake backend, the relay in front of it and how clients reach the relay.
type relayUnderTest struct {
	be       *backend.Server
	tgt      target.Target
	endpoint string
	proxy    client.Dialer
}

// openRelay starts the fake backend playing profile, then the relay named by f (or checks the
// one already running) in front of it.
func openRelay(ctx context.Context, f *targetFlags, profile backend.Profile, opts backend.Options, stderr io.Writer) (*relayUnderTest, error) {
	be, err := backend.ListenWith(f.backend, profile, newLogger(stderr, f.logLevel), opts)
	if err != nil {
		return nil, fmt.Errorf("fake backend: %w", err)
	}
	r := &relayUnderTest{be: be}
	if r.tgt, err = openTarget(ctx, f, be.Addr(), stderr); err != nil {
		be.Close()
		return nil, err
	}
	if r.endpoint, err = r.tgt.Endpoint(f.transport); err == nil {
		r.proxy, err = client.NewDialer(f.transport, r.endpoint)
	}
	if err != nil {
		return nil, errors.Join(err, r.close())
	}
	return r, nil
}

// close stops the relay and the backend; traffic the backend refused fails the run.
func (r *relayUnderTest) close() error {
	err := stopTarget(r.tgt)
	r.be.Close()
	if n := r.be.Failures(); n > 0 {
		err = errors.Join(err, fmt.Errorf("the backend refused %d sessions' traffic (see its log lines)", n))
	}
	return err
}

// openTarget is the relay named by --target, or moonbridge started by --serve.
func openTarget(ctx context.Context, f *targetFlags, backendAddr string, stderr io.Writer) (target.Target, error) {
	if f.target != "" {
		return target.External{Address: f.target, Pid: f.targetPID}, nil
	}
	cfg := target.ServeConfig{
		Binary: f.serve, Backend: backendAddr, TLSProvider: f.tlsProvider, ExtraArgs: f.serveArgs, Log: stderr,
	}
	if f.routesConfig != nil {
		path, err := f.routesConfig(backendAddr)
		if err != nil {
			return nil, fmt.Errorf("--serve: writing moonbridge's config: %w", err)
		}
		cfg.Backend, cfg.ExtraArgs = "", append(slices.Clone(f.serveArgs), "--config", path)
	}
	m, err := target.Start(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("--serve: %w", err)
	}
	return m, nil
}

func stopTarget(t target.Target) error {
	if err := t.Stop(); err != nil {
		return fmt.Errorf("stopping the relay: %w", err)
	}
	return nil
}
