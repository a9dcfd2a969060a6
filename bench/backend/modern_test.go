package backend

import (
	"net"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// A 1.21.1 player joins the modded profile's backend and echoes, compressed and not, as the
// transfer benchmark's players do.
func TestModernLoginIsServed(t *testing.T) {
	be, err := ListenWith("127.0.0.1:0", traffic.Modded(), zerolog.Nop(), Options{Modern: modern.ServerConfig{Compression: 256}})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	conn, err := net.Dial("tcp", be.Addr())
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	c, err := modern.Join(conn, "localhost", 25565, "Alex", modern.NextLogin, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{16, 600} {
		if err := c.Echo(make([]byte, size)); err != nil {
			t.Errorf("echo of %d bytes: %v", size, err)
		}
	}
	c.Close()
	be.Close()
	if be.Failures() != 0 {
		t.Errorf("failures %d", be.Failures())
	}
}
