package play

import (
	"testing"
	"unsafe"

	"github.com/moonbridge/moonbridge/mc"
)

// Every session of a joining player keeps a tracker for its whole life, mostly idle at a frame
// boundary: between frames it holds no buffer beyond its own few bytes, however far into a
// compressed frame it had to look for the last packet id.
func TestTrackerKeepsNoBufferBetweenFrames(t *testing.T) {
	tr := newTracker(t)
	feedAll(t, tr, frame(packet{mc.SetCompressionID, varInts(0)}, -1))
	feedAll(t, tr, frame(packet{mc.LoginSuccessID, nil}, 0))
	feedAll(t, tr, withLength(append(varInts(1), emptyBlocks(700)...))) // looked at up to headCap bytes
	if !tr.Movable() || tr.State() != Configuration {
		t.Fatalf("movable %v, state %v", tr.Movable(), tr.State())
	}
	if c := cap(tr.head); c > firstLook {
		t.Errorf("at a frame boundary the tracker holds a %d-byte buffer, want at most its own %d bytes", c, firstLook)
	}
	feedAll(t, tr, frame(packet{configFinish, nil}, 0)) // and it reads on
	if tr.State() != Play {
		t.Errorf("state %v after Finish Configuration, want play", tr.State())
	}
}

// The tracker fits Go's 176-byte size class; the inflater's reader of compressed bytes is the
// pool's, used only while a frame is inflated.
func TestTrackerFitsItsSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(Tracker{}); size > 176 {
		t.Errorf("Tracker is %d bytes, want at most 176", size)
	}
}
