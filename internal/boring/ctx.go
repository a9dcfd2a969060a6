//go:build boringssl && cgo

package boring

// #include "mbtls.h"
import "C"

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"unsafe"

	pointer "github.com/mattn/go-pointer"
)

// TicketKeyLen is the size of one session ticket key: a name, an HMAC key and an AES key.
// gossl defines its own key type; a key of another length does not fit CtxConfig.TicketKeys, so
// a difference fails to compile.
const TicketKeyLen = C.MB_TICKET_KEY_LEN

// MaxTicketKeys is how many ticket keys a context accepts; the first issues new tickets.
const MaxTicketKeys = C.MB_MAX_TICKET_KEYS

// CertPEM is one certificate chain (leaf first) and its private key, PEM-encoded.
type CertPEM struct {
	Chain []byte
	Key   []byte
}

// CtxConfig is everything an immutable server context holds.
type CtxConfig struct {
	MinVersion uint16               // 0x0303 or 0x0304
	Certs      []CertPEM            // the first is the default, the rest are chosen by SNI
	TicketKeys [][TicketKeyLen]byte // 1..MaxTicketKeys; the first issues new tickets
	KeyLog     io.Writer            // nil: off
	// AEADRecords: TLS 1.3 sessions hand their records to the shim's own AEAD record layer
	// once the handshake is over; false keeps SSL_read/SSL_write. TLS 1.2 always keeps them.
	AEADRecords bool
	// KeyUpdateAfter is how many records the AEAD record layer seals under one key before it
	// sends a KeyUpdate; 0 is the shim's default (2^24). Tests lower it.
	KeyUpdateAfter uint64
}

// Ctx is a built server context. New connections take a reference in C, so a Ctx may be
// dropped while its connections live; the C side is freed when the last of them goes.
type Ctx struct {
	p *C.mb_ctx
}

// NewCtx builds a server context; an error names the certificate that failed and why (gossl
// wraps it in its TLSError).
func NewCtx(cfg CtxConfig) (*Ctx, error) {
	p := C.mb_ctx_new(C.uint16_t(cfg.MinVersion))
	if p == nil {
		return nil, errors.New("context: out of memory")
	}
	if err := configure(p, cfg); err != nil {
		C.mb_ctx_free(p)
		return nil, err
	}
	var keylog unsafe.Pointer
	if cfg.KeyLog != nil {
		keylog = pointer.Save(cfg.KeyLog)
		setKeyLog(p, keylog)
	}
	ctx := &Ctx{p: p}
	runtime.AddCleanup(ctx, freeCtx, ctxHandles{p, keylog})
	return ctx, nil
}

// conns is how many C sessions still hold the context: the leak tests' view of the C side.
func (c *Ctx) conns() int {
	n := int(C.mb_ctx_conns(c.p))
	runtime.KeepAlive(c)
	return n
}

func configure(p *C.mb_ctx, cfg CtxConfig) error {
	for i, cert := range cfg.Certs {
		if reason, ok := addCert(p, cert); !ok {
			return fmt.Errorf("certificate %d: %s", i+1, reason)
		}
	}
	if n := len(cfg.TicketKeys); n > 0 {
		if n > MaxTicketKeys {
			return fmt.Errorf("context: %d ticket keys, at most %d", n, MaxTicketKeys)
		}
		C.mb_ctx_set_ticket_keys(p, (*C.uint8_t)(unsafe.Pointer(&cfg.TicketKeys[0][0])), C.size_t(n))
	}
	layer := C.int(C.MB_RECORDS_SSL)
	if cfg.AEADRecords {
		layer = C.MB_RECORDS_AEAD
	}
	C.mb_ctx_set_record_layer(p, layer, C.uint64_t(cfg.KeyUpdateAfter))
	return nil
}

type ctxHandles struct {
	p      *C.mb_ctx
	keylog unsafe.Pointer
}

func freeCtx(h ctxHandles) {
	C.mb_ctx_free(h.p)
	if h.keylog != nil {
		pointer.Unref(h.keylog)
	}
}

// addCert adds one certificate, or says why the shim refused it.
func addCert(p *C.mb_ctx, cert CertPEM) (reason string, ok bool) {
	var why *C.char
	if C.mb_ctx_add_cert(p, bytePtr(cert.Chain), C.size_t(len(cert.Chain)),
		bytePtr(cert.Key), C.size_t(len(cert.Key)), &why) == 1 {
		return "", true
	}
	return C.GoString(why), false
}

// bytePtr lends b to C for one call; nil for an empty slice.
func bytePtr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}
