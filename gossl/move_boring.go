//go:build boringssl && cgo

package gossl

import (
	"encoding/binary"
	"errors"

	"github.com/moonbridge/moonbridge/internal/boring"
)

// The moved state, big-endian:
//
//	format uint8 | suite uint16 | secret length uint8 | read secret | write secret |
//	read seq, write seq uint64
const moveFormat = 1

var _ MovableCodec = (*boringLoopCodec)(nil)

func (c *boringLoopCodec) MarshalMove() ([]byte, error) {
	st, err := c.eng.ExportMove()
	if err != nil {
		return nil, moveError(err)
	}
	defer st.Wipe()
	b := make([]byte, 0, 4+2*len(st.ReadSecret)+16)
	b = append(b, moveFormat)
	b = binary.BigEndian.AppendUint16(b, st.Suite)
	b = append(b, byte(len(st.ReadSecret)))
	b = append(append(b, st.ReadSecret...), st.WriteSecret...)
	b = binary.BigEndian.AppendUint64(b, st.ReadSeq)
	return binary.BigEndian.AppendUint64(b, st.WriteSeq), nil
}

// parseMove reads MarshalMove's bytes; its secrets alias b.
func parseMove(b []byte) (boring.MoveState, error) {
	if len(b) < 4 || b[0] != moveFormat {
		return boring.MoveState{}, &MoveError{Reason: "moved TLS state of another format"}
	}
	n := int(b[3])
	if n > boring.MaxMoveSecret || len(b) != 4+2*n+16 {
		return boring.MoveState{}, &MoveError{Reason: "moved TLS state of a wrong length"}
	}
	rest := b[4+2*n:]
	return boring.MoveState{
		Suite:       binary.BigEndian.Uint16(b[1:]),
		ReadSecret:  b[4 : 4+n],
		WriteSecret: b[4+n : 4+2*n],
		ReadSeq:     binary.BigEndian.Uint64(rest),
		WriteSeq:    binary.BigEndian.Uint64(rest[8:]),
	}, nil
}

func (b *boringBackend) resume(state []byte) (LoopCodec, error) {
	st, err := parseMove(state)
	if err != nil {
		return nil, err
	}
	eng, err := boring.ImportEngine(b.ctx.Load(), st)
	if err != nil {
		return nil, moveError(err)
	}
	return newBoringLoopCodec(eng), nil
}

// moveError is the engine's refusal as gossl's.
func moveError(err error) error {
	if nm, ok := errors.AsType[*boring.NotMovableError](err); ok {
		return &MoveError{Reason: nm.Reason}
	}
	return err
}
