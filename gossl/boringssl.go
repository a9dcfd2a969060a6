//go:build boringssl && cgo

package gossl

import (
	"net"
	"sync/atomic"

	"github.com/moonbridge/moonbridge/internal/boring"
)

// The shim takes at most boring.MaxTicketKeys keys: fewer kept fails to compile (a negative
// constant). The key length is checked by the type of CtxConfig.TicketKeys.
const _ = uint(boring.MaxTicketKeys - TicketKeysKept)

// boringProvider is the BoringSSL provider; this build has it.
func boringProvider() (Provider, error) {
	return provider{name: ProviderBoringSSL, newBackend: newBoringBackend}, nil
}

// boringBackend serves with the shim: each install builds a new immutable C context, and each
// connection keeps the context it started with.
type boringBackend struct {
	minVersion uint16
	cfg        ServerConfig
	ctx        atomic.Pointer[boring.Ctx]
}

func newBoringBackend(minVersion uint16, cfg ServerConfig) backend {
	return &boringBackend{minVersion: minVersion, cfg: cfg}
}

func (b *boringBackend) install(certs *certSet, keys []ticketKey) error {
	pems := make([]boring.CertPEM, len(certs.pems))
	for i, p := range certs.pems {
		pems[i] = boring.CertPEM{Chain: p.CertPEM, Key: p.KeyPEM}
	}
	ctx, err := boring.NewCtx(boring.CtxConfig{
		MinVersion:     b.minVersion,
		Certs:          pems,
		TicketKeys:     keys,
		KeyLog:         b.cfg.KeyLog,
		AEADRecords:    b.cfg.RecordLayer == RecordLayerAEAD,
		KeyUpdateAfter: b.cfg.keyUpdateAfter,
	})
	if err != nil {
		return &TLSError{Op: "certificate", Reason: err.Error(), Err: err}
	}
	b.ctx.Store(ctx)
	return nil
}

func (b *boringBackend) recordLayer() RecordLayer { return b.cfg.RecordLayer }

func (b *boringBackend) detachable() bool { return true }

func (b *boringBackend) wrap(raw net.Conn) Conn {
	return newBoringConn(raw, boring.NewEngine(b.ctx.Load()))
}

func releaseMemory() { boring.TrimMalloc() }
