//go:build boringssl && cgo

package boring

/*
#ifdef __GLIBC__
#include <malloc.h>
static void mb_malloc_trim(void) { malloc_trim(0); }
#else
static void mb_malloc_trim(void) {}
#endif
*/
import "C"

// TrimMalloc hands the free memory of the C heap (what freed SSL objects and their buffers
// leave) back to the system. glibc keeps freed memory in its arenas for the next allocation
// and returns little of it by itself, so after a flood of handshakes the process would stay at
// its peak; it walks every arena, so it is for after a flood, not for every tick. Elsewhere
// than glibc it does nothing.
func TrimMalloc() { C.mb_malloc_trim() }
