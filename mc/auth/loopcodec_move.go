package auth

import (
	"crypto/cipher"
	"fmt"
	"io"

	"github.com/moonbridge/moonbridge/loop"
	"github.com/moonbridge/moonbridge/mc/cfb8"
)

// cipherStateLen is MarshalCipher's length: the key and register of each direction.
const cipherStateLen = 4 * 16

// CipherStateError is UnmarshalLoopCodec's answer for a state it cannot carry on.
type CipherStateError struct{ Reason string }

func (e *CipherStateError) Error() string { return "login cipher state: " + e.Reason }

// Inner is the codec under the cipher (loop.Identity over plain TCP): what a moving session
// marshals apart (the WebSocket's state, the TLS records).
func (c *LoopCodec) Inner() loop.Codec { return c.inner }

// MarshalCipher is the cipher's state for an upgrade to carry the session on: encrypting then
// decrypting direction, each key then register. It is key material: it goes only over the
// hand-over channel, is never logged, and the caller clears it once sent.
func (c *LoopCodec) MarshalCipher() ([]byte, error) {
	b := make([]byte, 0, cipherStateLen)
	for _, s := range [...]struct {
		name   string
		stream cipher.Stream
	}{{"encrypting", c.enc}, {"decrypting", c.dec}} {
		st, err := cfb8.Export(s.stream)
		if err != nil {
			return nil, fmt.Errorf("the %s direction: %w", s.name, err)
		}
		b = append(append(b, st.Key[:]...), st.Register[:]...)
		st.Clear()
	}
	return b, nil
}

// UnmarshalCipher is the cipher pair MarshalCipher wrote, carried on in impl (ImplGo or
// ImplBoringSSL: the new process's own choice), for NewLoopCodec over the moved session's inner
// codec. The caller clears state, and closes the streams (Player.CloseCipher) when done.
func UnmarshalCipher(impl cfb8.Impl, state []byte) (enc, dec cipher.Stream, err error) {
	if len(state) != cipherStateLen {
		return nil, nil, &CipherStateError{Reason: fmt.Sprintf("%d bytes, want %d", len(state), cipherStateLen)}
	}
	var encState, decState cfb8.State
	decState.Decrypt = true
	copy(encState.Key[:], state[0:16])
	copy(encState.Register[:], state[16:32])
	copy(decState.Key[:], state[32:48])
	copy(decState.Register[:], state[48:64])
	defer encState.Clear()
	defer decState.Clear()
	if enc, err = cfb8.Import(impl, encState); err != nil {
		return nil, nil, &CipherStateError{Reason: err.Error()}
	}
	if dec, err = cfb8.Import(impl, decState); err != nil {
		if c, ok := enc.(io.Closer); ok { // BoringSSL's: free it now
			c.Close()
		}
		return nil, nil, &CipherStateError{Reason: err.Error()}
	}
	return enc, dec, nil
}
