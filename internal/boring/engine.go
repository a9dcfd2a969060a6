//go:build boringssl && cgo

package boring

/*
#include "mbtls.h"

// The per-record calls neither keep Go pointers nor call back into Go. mb_handshake is only
// noescape: with key logging on it calls mbGoKeyLog.
#cgo noescape mb_open
#cgo nocallback mb_open
#cgo noescape mb_open_inplace
#cgo nocallback mb_open_inplace
#cgo noescape mb_seal
#cgo nocallback mb_seal
#cgo noescape mb_drain
#cgo nocallback mb_drain
#cgo noescape mb_shutdown
#cgo nocallback mb_shutdown
#cgo noescape mb_handshake
#cgo noescape mb_conn_state
#cgo nocallback mb_conn_state
*/
import "C"

import (
	"runtime"
	"sync"
)

// Status is the outcome of one engine call.
type Status int

// The statuses of mbtls.h.
const (
	OK       Status = C.MB_OK        // done
	WantRead Status = C.MB_WANT_READ // needs more ciphertext
	Closed   Status = C.MB_CLOSED    // the peer sent close_notify
	Fatal    Status = C.MB_FATAL     // the session is dead; Result.Reason says why
)

// Result is what one engine call did.
type Result struct {
	Consumed     int    // input bytes taken
	Produced     int    // output bytes written
	PlainPending int    // opened plaintext still inside the engine
	OutPending   int    // ciphertext still inside the engine, for Drain
	Status       Status //
	Reason       string // set when Status is Fatal
}

// MaxPlaintext is the most plaintext one TLS record carries.
const MaxPlaintext = C.MB_MAX_PLAINTEXT

// SealBound is the largest ciphertext Seal makes from n bytes of plaintext.
func SealBound(n int) int { return n + (n/MaxPlaintext+1)*C.MB_SEAL_OVERHEAD }

// Engine is one TLS server session in C. Every method is one cgo call and holds the engine's
// lock for it, because an SSL object must not be used from two threads at once (the two pumps
// of a session read and write concurrently).
//
// Like every handle in Go's crypto/internal/boring, an Engine has a cleanup: one dropped without
// Free (a connection never closed) still frees its C session when it is collected.
type Engine struct {
	mu      sync.Mutex
	p       *C.mb_conn
	cleanup runtime.Cleanup
}

// NewEngine starts a server session on ctx; nil only when out of memory.
func NewEngine(ctx *Ctx) *Engine {
	p := C.mb_conn_new(ctx.p)
	runtime.KeepAlive(ctx) // the C session holds its own reference from here on
	if p == nil {
		return nil
	}
	return wrapConn(p)
}

// wrapConn is the Engine of the C session p, with its cleanup.
func wrapConn(p *C.mb_conn) *Engine {
	e := &Engine{p: p}
	e.cleanup = runtime.AddCleanup(e, freeConn, p)
	return e
}

func freeConn(p *C.mb_conn) { C.mb_conn_free(p) }

// Free releases the C session; later calls fail with "closed". It is safe to call twice. It
// stops the cleanup first: e is reachable here, so the cleanup has not run and now never will,
// and the session is freed exactly once.
func (e *Engine) Free() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.p == nil {
		return
	}
	e.cleanup.Stop()
	C.mb_conn_free(e.p)
	e.p = nil
}

type op int

const (
	opOpen op = iota
	opOpenInPlace
	opSeal
	opDrain
	opShutdown
)

var errClosed = Result{Status: Fatal, Reason: "closed"}

// do enters C for the per-record operations: lock, call, unpack. They are all noescape
// and nocallback, which is what lets res and the buffers stay where they are (cgo keeps Go
// arguments off the heap only for functions marked both).
func (e *Engine) do(o op, in, out []byte) Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.p == nil {
		return errClosed
	}
	var res C.mb_result
	inP, inN, outP, outN := bytePtr(in), C.size_t(len(in)), bytePtr(out), C.size_t(len(out))
	switch o {
	case opOpen:
		C.mb_open(e.p, inP, inN, outP, outN, &res)
	case opOpenInPlace: // in is out[:len(in)]
		C.mb_open_inplace(e.p, outP, inN, outN, &res)
	case opSeal:
		C.mb_seal(e.p, inP, inN, outP, outN, &res)
	case opDrain:
		C.mb_drain(e.p, outP, outN, &res)
	case opShutdown:
		C.mb_shutdown(e.p, outP, outN, &res)
	}
	return result(&res)
}

// Handshake feeds ciphertext in and writes the handshake's answer to out. It is apart from do
// because mb_handshake may call back into Go (key logging), so its result escapes to the heap:
// one small allocation per handshake step, none per record.
func (e *Engine) Handshake(in, out []byte) Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.p == nil {
		return errClosed
	}
	var res C.mb_result
	C.mb_handshake(e.p, bytePtr(in), C.size_t(len(in)), bytePtr(out), C.size_t(len(out)), &res)
	return result(&res)
}

// Open feeds ciphertext in and opens every complete record into out until out is full.
func (e *Engine) Open(in, out []byte) Result { return e.do(opOpen, in, out) }

// OpenInPlace opens every complete record of the ciphertext buf[:n] into plaintext at the front
// of buf (Result.Produced bytes). A record begun in an earlier call may open to up to
// MaxPlaintext bytes more than this call's ciphertext: with len(buf) >= n+MaxPlaintext
// everything fits, otherwise the rest waits (PlainPending, or Consumed < n).
func (e *Engine) OpenInPlace(buf []byte, n int) Result { return e.do(opOpenInPlace, buf[:n], buf) }

// Seal seals all of in into out, which should hold SealBound(len(in)) bytes.
func (e *Engine) Seal(in, out []byte) Result { return e.do(opSeal, in, out) }

// Drain writes ciphertext waiting inside the engine (alerts, big flights) to out.
func (e *Engine) Drain(out []byte) Result { return e.do(opDrain, nil, out) }

// Shutdown writes close_notify to out.
func (e *Engine) Shutdown(out []byte) Result { return e.do(opShutdown, nil, out) }

// State describes an established session.
type State struct {
	Version     uint16
	CipherSuite uint16
	Group       uint16 // the key exchange's IANA id
	Resumed     bool
	AEADRecords bool // the shim's own AEAD record layer carries the records (TLS 1.3 only)
	ALPN        string
	ServerName  string
}

// State reads the session's parameters (once, after the handshake: it copies strings).
func (e *Engine) State() State {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.p == nil {
		return State{}
	}
	var st C.mb_state
	C.mb_conn_state(e.p, &st)
	return State{
		Version:     uint16(st.version),
		CipherSuite: uint16(st.cipher_suite),
		Group:       uint16(st.group),
		Resumed:     st.resumed != 0,
		AEADRecords: st.aead_records != 0,
		ALPN:        C.GoString(&st.alpn[0]),
		ServerName:  C.GoString(&st.server_name[0]),
	}
}

func result(res *C.mb_result) Result {
	r := Result{
		Consumed:     int(res.consumed),
		Produced:     int(res.produced),
		PlainPending: int(res.plain_pending),
		OutPending:   int(res.out_pending),
		Status:       Status(res.status),
	}
	if r.Status == Fatal {
		r.Reason = C.GoString(res.reason) // allocates, but only once per dead session
	}
	return r
}
