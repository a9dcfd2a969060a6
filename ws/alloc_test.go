package ws

import (
	"testing"
)

func TestWriteBatchZeroAllocs(t *testing.T) {
	for _, role := range []Role{RoleServer, RoleClient} {
		lc := &loopConn{}
		c := NewConn(lc, role, noKeepalive())
		buf := make([]byte, MaxHeaderLen+MaxBatchSize)
		for _, size := range []int{0, 100, 300, 70000 - 4464, MaxBatchSize} {
			if a := testing.AllocsPerRun(200, func() {
				if err := c.WriteBatch(buf[:MaxHeaderLen+size]); err != nil {
					t.Fatal(err)
				}
			}); a != 0 {
				t.Errorf("role %d, %d bytes: %v allocations per batch", role, size, a)
			}
		}
	}
}

func TestWriteZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers at random; WriteBatch's test covers the frame path")
	}
	c := NewConn(&loopConn{}, RoleServer, noKeepalive())
	p := make([]byte, 200000)
	if a := testing.AllocsPerRun(100, func() { _, _ = c.Write(p) }); a != 0 {
		t.Errorf("%v allocations per Write", a)
	}
}

// TestReadZeroAllocs reads a steady stream of masked frames with
// pings (answered with pongs) in 1460-byte socket reads.
func TestReadZeroAllocs(t *testing.T) {
	var stream []byte
	for i, size := range []int{20, 300, 5000, 40000, 125, 0, 70000} {
		stream = append(stream, frame(true, OpBinary, make([]byte, size), uint32(0x01020304*(i+1)))...)
		stream = append(stream, frame(true, OpPing, []byte("tick"), 0x0a0b0c0d)...)
	}
	lc := &loopConn{data: stream, chunk: 1460}
	c := NewConn(lc, RoleServer, noKeepalive())
	buf := make([]byte, 1<<16)
	if a := testing.AllocsPerRun(5000, func() {
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per Read", a)
	}
	if lc.writes == 0 {
		t.Error("no pong was written")
	}
}

func TestEncoderZeroAllocs(t *testing.T) {
	c := NewConn(&loopConn{}, RoleClient, noKeepalive())
	e := NewEncoder(c)
	defer e.Close()
	pkt := make([]byte, 700)
	if a := testing.AllocsPerRun(500, func() {
		for range 5 {
			_, _ = e.Write(pkt)
		}
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per burst", a)
	}
}
