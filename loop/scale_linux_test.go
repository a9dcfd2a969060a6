package loop

import (
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTenThousandSessionsLeaveNoDescriptor opens 10 000 sessions through two loops, 250 at a
// time, moves a byte each way through each (a batch's bytes all in flight at once), closes them from both far ends, and counts the
// process's descriptors: every socket the loops took must be closed.
func TestTenThousandSessionsLeaveNoDescriptor(t *testing.T) {
	const total, batch = 10_000, 250
	raiseNoFile(t, 4*batch+256)
	e := newEngine(t, Config{Loops: 2})
	ls := newListeners(t)
	before := openDescriptors(t)
	one := make([]byte, 1)
	for done := 0; done < total; done += batch {
		pairs := make([]*pair, batch)
		for i := range pairs {
			pairs[i] = ls.open(t, e, nil)
		}
		for _, p := range pairs { // every byte of the batch goes out before the first is awaited
			p.player.Write([]byte{'u'})
			p.backend.Write([]byte{'d'})
		}
		for _, p := range pairs {
			if _, err := io.ReadFull(p.backend, one); err != nil || one[0] != 'u' {
				t.Fatalf("backend read %q, %v", one, err)
			}
			if _, err := io.ReadFull(p.player, one); err != nil || one[0] != 'd' {
				t.Fatalf("player read %q, %v", one, err)
			}
			p.player.Close()
			p.backend.Close()
		}
		for _, p := range pairs {
			p.result(t)
		}
	}
	if st := e.Stats(); st.Sessions != 0 || st.Held != 0 {
		t.Fatalf("after %d sessions: %+v", total, st)
	}
	// At most as many as before: descriptors of earlier tests may still be closing.
	if after := openDescriptors(t); after > before {
		t.Fatalf("%d descriptors open after %d sessions, %d before", after, total, before)
	}
}

// raiseNoFile lifts the soft descriptor limit to at least n for the test.
func raiseNoFile(t *testing.T, n uint64) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur >= n {
		return
	}
	if lim.Max < n {
		t.Fatalf("RLIMIT_NOFILE hard limit %d is below the %d descriptors this test needs", lim.Max, n)
	}
	old := lim
	lim.Cur = n
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Setrlimit(unix.RLIMIT_NOFILE, &old) })
}

func openDescriptors(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
