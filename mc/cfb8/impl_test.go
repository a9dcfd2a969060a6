package cfb8

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/internal/boring"
)

// TestChoose: go is this package's streams, boringssl is the shim's or, in a pure-Go build, an
// error that says what to do; auto follows the build and the CPU.
func TestChoose(t *testing.T) {
	if c, err := Choose(ImplGo); err != nil || c.Impl != ImplGo || !isGoPair(c) {
		t.Errorf("go: %+v %v, want Go's streams", c, err)
	}
	c, err := Choose(ImplBoringSSL)
	switch {
	case !boring.Enabled && (!errors.Is(err, ErrBoringNotCompiled) || !strings.Contains(err.Error(), "make build")):
		t.Errorf("boringssl in a pure-Go build: %v, want ErrBoringNotCompiled naming `make build`", err)
	case boring.Enabled && (err != nil || c.Impl != ImplBoringSSL):
		t.Errorf("boringssl: %+v %v", c, err)
	case boring.Enabled:
		enc, _, err := c.NewPair(make([]byte, 16))
		if _, closes := enc.(io.Closer); err != nil || !closes {
			t.Errorf("boringssl's pair: %T %v, want the shim's closable streams", enc, err)
		}
	}
	// auto picks the shim's CFB8 where it is accelerated, Go's elsewhere
	// (bench/results/2026-11-30-cfb8-vector-register.md).
	want := map[bool]Impl{true: ImplBoringSSL, false: ImplGo}[BoringAccelerated()]
	for _, impl := range []Impl{ImplAuto, ""} {
		auto, err := Choose(impl)
		if err != nil || auto.Impl != want || isGoPair(auto) == BoringAccelerated() || auto.Reason == "" {
			t.Errorf("%q: %+v %v, want %s", impl, auto, err, want)
		}
	}
	if _, err := Choose("aes-ni"); err == nil {
		t.Error("an unknown implementation was taken")
	}
}

// isGoPair reports whether c's pair is this package's Go streams.
func isGoPair(c Choice) bool {
	enc, _, err := c.NewPair(make([]byte, 16))
	_, isGo := enc.(*Stream)
	return err == nil && isGo
}

// TestParseImpl: the three names and "" (the default) parse, and anything else does not;
// UnmarshalText keeps the old value on an error.
func TestParseImpl(t *testing.T) {
	for in, want := range map[string]Impl{"": DefaultImpl, "auto": ImplAuto, "boringssl": ImplBoringSSL, "go": ImplGo} {
		var i Impl
		if err := i.UnmarshalText([]byte(in)); err != nil || i != want || i.String() != string(want) {
			t.Errorf("%q: %q %v, want %q", in, i, err, want)
		}
	}
	i := ImplGo
	if err := i.UnmarshalText([]byte("Go")); err == nil || i != ImplGo {
		t.Errorf("Go: %q %v, want an error and the old value", i, err)
	}
	if DefaultImpl != ImplAuto {
		t.Errorf("default %q, want auto", DefaultImpl)
	}
}
