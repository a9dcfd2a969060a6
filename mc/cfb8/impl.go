package cfb8

import (
	"crypto/cipher"
	"fmt"

	"github.com/moonbridge/moonbridge/internal/boring"
	"github.com/moonbridge/moonbridge/internal/enum"
)

// Impl names an implementation of Minecraft's AES-128/CFB8 (login.cipher).
type Impl string

const (
	// ImplAuto is Choose's pick: BoringSSL's where it is accelerated, Go's elsewhere.
	ImplAuto Impl = "auto"
	// ImplBoringSSL is the shim's (NewBoringPair); it needs the cgo build.
	ImplBoringSSL Impl = "boringssl"
	// ImplGo is this package's (NewAESPair), in every build.
	ImplGo Impl = "go"
)

// DefaultImpl is login.cipher's default.
const DefaultImpl = ImplAuto

// ParseImpl reads an implementation's name; "" is DefaultImpl.
func ParseImpl(s string) (Impl, error) {
	if s == "" {
		return DefaultImpl, nil
	}
	i, err := enum.Parse([]byte(s), ImplAuto, ImplBoringSSL, ImplGo)
	if err != nil {
		return "", fmt.Errorf("cfb8: implementation %w", err)
	}
	return i, nil
}

// UnmarshalText is ParseImpl for configuration decoders; i is unchanged on an error.
func (i *Impl) UnmarshalText(text []byte) error {
	parsed, err := ParseImpl(string(text))
	if err == nil {
		*i = parsed
	}
	return err
}

// String is the implementation's configuration name.
func (i Impl) String() string { return string(i) }

// Choice is an Impl resolved to the implementation that runs.
type Choice struct {
	Impl    Impl   // ImplBoringSSL or ImplGo
	Reason  string // why, for the startup log
	NewPair func(key []byte) (enc, dec cipher.Stream, err error)
}

// choiceRecord is the benchmark record behind ImplAuto's rule.
const choiceRecord = "bench/results/2026-11-30-cfb8-vector-register.md"

// Choose resolves impl. ImplBoringSSL fails with ErrBoringNotCompiled in a pure-Go build.
//
// ImplAuto's rule is choiceRecord's: the shim's CFB8 where it runs AES-NI with the register in
// a vector register (BoringAccelerated); elsewhere Go's, which costs the same as BoringSSL's
// AES_encrypt per byte (bench/results/2026-11-30-cfb8-cipher.md) and keeps no C state per
// session.
func Choose(impl Impl) (Choice, error) {
	boringChoice := Choice{Impl: ImplBoringSSL, NewPair: NewBoringPair}
	goChoice := Choice{Impl: ImplGo, NewPair: NewAESPair}
	impl, err := ParseImpl(string(impl))
	switch {
	case err != nil:
		return Choice{}, err
	case impl == ImplGo:
		goChoice.Reason = "login.cipher is go"
		return goChoice, nil
	case impl == ImplBoringSSL && !boring.Enabled:
		return Choice{}, ErrBoringNotCompiled
	case impl == ImplBoringSSL:
		boringChoice.Reason = "login.cipher is boringssl"
		return boringChoice, nil
	case BoringAccelerated():
		boringChoice.Reason = "auto: the shim's AES-NI CFB8 is the fastest here (" + choiceRecord + ")"
		return boringChoice, nil
	}
	goChoice.Reason = "auto: this CPU or build has no accelerated CFB8 in the shim, and Go's costs the same as BoringSSL's AES per byte"
	return goChoice, nil
}
