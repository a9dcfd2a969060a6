package cfb8

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
)

// State is one direction of CFB8 at a point of its stream: everything another process needs to
// carry on with the same bytes (an upgrade moving a session). The register is the last 16
// ciphertext bytes (the IV before 16 have passed), so a stream made with Key and Register as
// its IV continues exactly where the exported one stands. Key is key material: never log a
// State, and Clear it once it has been written out or imported.
type State struct {
	Key      [16]byte
	Register [aes.BlockSize]byte
	Decrypt  bool
}

// Clear overwrites the key and register.
func (s *State) Clear() {
	clear(s.Key[:])
	clear(s.Register[:])
}

// NotExportableError is Export's answer for a cipher.Stream this package did not make.
type NotExportableError struct{ Type string }

func (e *NotExportableError) Error() string {
	return "cfb8: a " + e.Type + " has no state to export (not a stream of this package)"
}

// boringExporter is the shim's stream (internal/boring.CFB8): its C side keeps the key and
// the register, and copies them out.
type boringExporter interface {
	Export() (key, reg [16]byte, decrypt bool)
}

// Export reads s's state (a stream of this package: Go's or the shim's); s carries on unchanged.
func Export(s cipher.Stream) (State, error) {
	switch s := s.(type) {
	case *Stream:
		return s.exportState(), nil
	case boringExporter:
		key, reg, decrypt := s.Export()
		return State{Key: key, Register: reg, Decrypt: decrypt}, nil
	}
	return State{}, &NotExportableError{Type: fmt.Sprintf("%T", s)}
}

// Import makes a stream of impl (ImplGo or ImplBoringSSL) that continues from st. st is not
// cleared: the caller holds it and clears it.
func Import(impl Impl, st State) (cipher.Stream, error) {
	switch impl {
	case ImplGo:
		return New(st.Key[:], st.Register[:], st.Decrypt)
	case ImplBoringSSL:
		return newBoring(st.Key[:], st.Register[:], st.Decrypt)
	}
	return nil, fmt.Errorf("cfb8: cannot import into implementation %q: want %s or %s", impl, ImplGo, ImplBoringSSL)
}

// exportState is the Go stream's state: the register is the window at pos.
func (s *Stream) exportState() State {
	st := State{Key: s.key, Decrypt: s.decrypt}
	copy(st.Register[:], s.reg[s.pos:s.pos+aes.BlockSize])
	return st
}
