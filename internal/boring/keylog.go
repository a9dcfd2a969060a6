//go:build boringssl && cgo

package boring

/*
#include "mbtls.h"
extern void mbGoKeyLog(void *handle, char *line);
*/
import "C"

import (
	"io"
	"unsafe"

	pointer "github.com/mattn/go-pointer"
)

// setKeyLog makes the context pass each handshake secret line to mbGoKeyLog with handle, a
// go-pointer token for the io.Writer (C may not hold Go pointers between calls).
func setKeyLog(p *C.mb_ctx, handle unsafe.Pointer) {
	C.mb_ctx_set_keylog(p, C.mb_keylog_fn(C.mbGoKeyLog), handle)
}

// mbGoKeyLog is the only C-to-Go callback: it runs during handshake calls when key logging is
// on, never on the per-record path.
//
//export mbGoKeyLog
func mbGoKeyLog(handle unsafe.Pointer, line *C.char) {
	w, ok := pointer.Restore(handle).(io.Writer)
	if !ok {
		return
	}
	_, _ = w.Write(append([]byte(C.GoString(line)), '\n')) // best effort: a debugging aid
}
