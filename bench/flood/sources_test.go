package flood

import (
	"net/netip"
	"testing"
)

func TestSourcesSpreadOverNetworks(t *testing.T) {
	s := Sources{Networks: 1000}
	nets := map[[3]byte]bool{}
	addrs := map[netip.Addr]bool{}
	for i := range uint64(5000) {
		a := s.Addr(i)
		b := a.As4()
		if b[0] != 127 || b[1] < 10 || b[3] == 0 || b[3] == 255 {
			t.Fatalf("connection %d from %v: want 127.10.0.1 or above, no .0 or .255 host", i, a)
		}
		nets[[3]byte{b[0], b[1], b[2]}] = true
		addrs[a] = true
	}
	if len(nets) != 1000 || len(addrs) != 5000 || s.Distinct(5000) != 5000 {
		t.Errorf("%d /24s, %d addresses over 5000 connections; want 1000 and 5000", len(nets), len(addrs))
	}
	if s.Addr(0) == s.Addr(1) || s.Addr(0).As4()[2] == s.Addr(1).As4()[2] {
		t.Errorf("consecutive connections share a /24: %v %v", s.Addr(0), s.Addr(1))
	}
}

func TestSourcesOneNetwork(t *testing.T) {
	s := Sources{Networks: 1, Offset: 7}
	addrs := map[netip.Addr]bool{}
	for i := range uint64(1000) {
		a := s.Addr(i).As4()
		if a != [4]byte{127, 10, 0, a[3]} {
			t.Fatalf("connection %d from %v: want 127.10.0.x", i, s.Addr(i))
		}
		addrs[s.Addr(i)] = true
	}
	if len(addrs) != 254 || s.Distinct(1000) != 254 {
		t.Errorf("%d addresses, want the 254 of one /24", len(addrs))
	}
	if err := (Sources{Networks: maxNetworks + 1}).Check(); err == nil {
		t.Error("more networks than 127.10-255 holds: no error")
	}
	last := Sources{Networks: maxNetworks}.Addr(maxNetworks - 1).As4()
	if last != [4]byte{127, 255, 255, 1} {
		t.Errorf("last network %v, want 127.255.255.1", last)
	}
}

func TestPlayerSourcesSpreadPerNetwork(t *testing.T) {
	p := PlayerSources{PerNetwork: 4}
	if err := p.Check(200); err != nil {
		t.Fatal(err)
	}
	want := map[uint64]string{0: "127.1.0.1", 3: "127.1.0.4", 4: "127.1.1.1", 1023: "127.1.255.4", 1024: "127.2.0.1"}
	for i, w := range want {
		if got := p.Addr(i).String(); got != w {
			t.Errorf("player %d from %s, want %s", i, got, w)
		}
	}
	if p.Check(4*9*256+1) == nil || (PlayerSources{}).Check(1) == nil {
		t.Error("players that do not fit, or 0 per network: no error")
	}
}

func TestSourcesOneAddress(t *testing.T) {
	s := Sources{Networks: 1, Hosts: 1, Offset: 3}
	for i := range uint64(500) {
		if a := s.Addr(i); a != netip.MustParseAddr("127.10.0.1") {
			t.Fatalf("connection %d from %v: want 127.10.0.1 only", i, a)
		}
	}
	if d := s.Distinct(500); d != 1 {
		t.Errorf("Distinct(500) = %d, want 1", d)
	}
	if err := (Sources{Networks: 1, Hosts: 255}).Check(); err == nil {
		t.Error("255 hosts per /24 accepted")
	}
}
