package mc

import (
	"testing"
)

func TestCheckHelloStart(t *testing.T) {
	hs := Handshake{Protocol: 767, Port: 25565, NextState: NextLogin}
	handshake := hs.AppendFrame(nil, "mc.example")
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"handshake", handshake, nil},
		{"handshake's first two bytes", handshake[:2], nil},
		{"legacy ping", []byte{0xfe}, nil},
		{"legacy 1.4 ping", []byte{0xfe, 0x01}, nil},
		{"long frame", []byte{0x80, 0x02, 0x00}, nil},
		{"nothing", nil, ErrNeedMore},
		{"length only", []byte{0x10}, ErrNeedMore},
		{"length cut", []byte{0x80, 0x80}, ErrNeedMore},
		{"TLS record", []byte{0x16, 0x03, 0x01}, ErrNotHello},
		{"HTTP", []byte("GET / HTTP/1.1\r\n"), ErrNotHello},
		{"PROXY header", []byte("PROXY TCP4 "), ErrNotHello},
		{"packet id 7", []byte{0x02, 0x07, 0x00}, ErrNotHello},
		{"empty frame", []byte{0x00, 0x00}, ErrNotHello},
		{"length of 4 bytes", []byte{0x80, 0x80, 0x80, 0x01, 0x00}, ErrNotHello},
	}
	for _, c := range cases {
		if got := CheckHelloStart(c.b); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCheckHelloStartZeroAllocs(t *testing.T) {
	b := []byte{0x10, 0x00, 0xff}
	if n := testing.AllocsPerRun(100, func() { _ = CheckHelloStart(b) }); n != 0 {
		t.Fatalf("%v allocations, want 0", n)
	}
}
