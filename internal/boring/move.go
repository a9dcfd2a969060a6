//go:build boringssl && cgo

package boring

// #include "mbtls.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// MaxMoveSecret is the longest traffic secret a MoveState holds (SHA-384's).
const MaxMoveSecret = C.MB_MOVE_MAX_SECRET

// MoveState is an established TLS 1.3 session's record state, taken at a clean boundary to carry
// the session on in another process: the suite, each direction's current traffic secret (after
// every KeyUpdate so far) and the sequence number of its next record. The secrets are the
// session's keys: send them only to the process the upgrade started, never log them, and Wipe
// the state once it is sent or imported.
type MoveState struct {
	Suite                   uint16
	ReadSecret, WriteSecret []byte // the engine's view: read is what the client seals
	ReadSeq, WriteSeq       uint64
}

// Wipe zeroes the secrets.
func (s *MoveState) Wipe() {
	clear(s.ReadSecret)
	clear(s.WriteSecret)
	*s = MoveState{}
}

// NotMovableError says why an engine is not at a boundary where its session can move.
type NotMovableError struct{ Reason string }

func (e *NotMovableError) Error() string { return "TLS session cannot move: " + e.Reason }

// ExportMove reads the engine's record state. It fails with a *NotMovableError unless the
// session is TLS 1.3, past its handshake, with nothing of the peer's held inside the engine and
// nothing of its own waiting to go out. The engine is unchanged either way; after a successful
// move it must not open or seal again (the new process continues its sequence numbers).
func (e *Engine) ExportMove() (MoveState, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.p == nil {
		return MoveState{}, &NotMovableError{Reason: "closed"}
	}
	var mv C.mb_tls_move
	defer C.mb_tls_move_wipe(&mv)
	var reason *C.char
	if C.mb_conn_export(e.p, &mv, &reason) == 0 {
		return MoveState{}, &NotMovableError{Reason: C.GoString(reason)}
	}
	n := int(mv.secret_len)
	return MoveState{
		Suite:       uint16(mv.suite),
		ReadSecret:  C.GoBytes(unsafe.Pointer(&mv.read_secret[0]), C.int(n)),
		WriteSecret: C.GoBytes(unsafe.Pointer(&mv.write_secret[0]), C.int(n)),
		ReadSeq:     uint64(mv.read_seq),
		WriteSeq:    uint64(mv.write_seq),
	}, nil
}

// ImportEngine makes an engine on ctx that carries on from st with the AEAD record layer
// (ctx's KeyUpdate limit applies); an error for a state it cannot take. st is not changed.
func ImportEngine(ctx *Ctx, st MoveState) (*Engine, error) {
	if len(st.ReadSecret) != len(st.WriteSecret) || len(st.ReadSecret) > MaxMoveSecret {
		return nil, &NotMovableError{Reason: "traffic secrets of a wrong length"}
	}
	var mv C.mb_tls_move
	defer C.mb_tls_move_wipe(&mv)
	mv.suite = C.uint16_t(st.Suite)
	mv.secret_len = C.size_t(len(st.ReadSecret))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&mv.read_secret[0])), MaxMoveSecret), st.ReadSecret)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&mv.write_secret[0])), MaxMoveSecret), st.WriteSecret)
	mv.read_seq, mv.write_seq = C.uint64_t(st.ReadSeq), C.uint64_t(st.WriteSeq)
	var reason *C.char
	p := C.mb_conn_import(ctx.p, &mv, &reason)
	runtime.KeepAlive(ctx) // the C session holds its own reference from here on
	if p == nil {
		return nil, &NotMovableError{Reason: C.GoString(reason)}
	}
	return wrapConn(p), nil
}
