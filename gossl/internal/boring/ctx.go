//go:build boringssl && cgo

package boring

// #include "mbtls.h"
import "C"

import (
	"fmt"
	"io"
	"runtime"
	"unsafe"

	pointer "github.com/mattn/go-pointer"
)

// The constants of tickets.go must equal mbtls.h's: a difference makes one of these negative,
// which does not compile.
const (
	_ = uint(TicketKeyLen - C.MB_TICKET_KEY_LEN)
	_ = uint(C.MB_TICKET_KEY_LEN - TicketKeyLen)
	_ = uint(MaxTicketKeys - C.MB_MAX_TICKET_KEYS)
	_ = uint(C.MB_MAX_TICKET_KEYS - MaxTicketKeys)
)

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
}

// Ctx is a built server context. New connections take a reference in C, so a Ctx may be
// dropped while its connections live; the C side is freed when the last of them goes.
type Ctx struct {
	p *C.mb_ctx
}

// NewCtx builds a server context; an error names the certificate that failed and why.
func NewCtx(cfg CtxConfig) (*Ctx, error) {
	p := C.mb_ctx_new(C.uint16_t(cfg.MinVersion))
	if p == nil {
		return nil, &Error{Op: "context", Reason: "out of memory"}
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

func configure(p *C.mb_ctx, cfg CtxConfig) error {
	for i, cert := range cfg.Certs {
		if err := addCert(p, cert); err != nil {
			err.Reason = fmt.Sprintf("certificate %d: %s", i+1, err.Reason)
			return err
		}
	}
	if n := len(cfg.TicketKeys); n > 0 {
		if n > MaxTicketKeys {
			return &Error{Op: "context", Reason: "too many ticket keys"}
		}
		C.mb_ctx_set_ticket_keys(p, (*C.uint8_t)(unsafe.Pointer(&cfg.TicketKeys[0][0])), C.size_t(n))
	}
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

func addCert(p *C.mb_ctx, cert CertPEM) *Error {
	var reason *C.char
	ok := C.mb_ctx_add_cert(p, bytePtr(cert.Chain), C.size_t(len(cert.Chain)),
		bytePtr(cert.Key), C.size_t(len(cert.Key)), &reason)
	if ok == 1 {
		return nil
	}
	return &Error{Op: "certificate", Reason: C.GoString(reason)}
}

// bytePtr lends b to C for one call; nil for an empty slice.
func bytePtr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}
