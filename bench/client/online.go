package client

import (
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
	"github.com/moonbridge/moonbridge/mc/cfb8"
)

// Online is a dialer whose sessions log in as online-mode players, to a relay that runs the
// login itself (moonbridge's auth: online): they answer its Encryption Request, join at Sessions
// first as a real client joins at Mojang's, and from then on encrypt and decrypt everything.
// The bytes of the profile, and their check, stay the same.
type Online struct {
	Dialer
	Sessions *authfake.SessionServer
}

// errNoEncryptionRequest: the relay answered Login Start with something else, so it did not run
// an online login (a route left in passthrough, say); measuring on would compare the wrong thing.
var errNoEncryptionRequest = errors.New("online login: the relay did not send an Encryption Request (is its route auth: online?)")

// encrypt answers the relay's Encryption Request and turns the cipher on both ways.
func (s *Session) encrypt(sessions *authfake.SessionServer) error {
	shape, _, _ := mc.LoginShapeOf(login.Protocol)
	var req mc.EncryptionRequest
	body, err := mc.ReadParsed(s.r, func(b []byte) ([]byte, int, error) { return mc.ReadFrame(b, mc.MaxFrameLen) })
	if err != nil {
		return fmt.Errorf("online login: %w", err)
	}
	if id, fields, err := mc.PacketID(body); err != nil || id != mc.EncryptionRequestID {
		return errNoEncryptionRequest
	} else if req, err = mc.ParseEncryptionRequest(fields, shape); err != nil {
		return fmt.Errorf("online login: %w", err)
	}
	secret := make([]byte, 16)
	rand.Read(secret)
	sessions.Join(s.name, auth.ServerHash(req.ServerID, secret, req.PublicKey))
	resp, err := authfake.EncryptionResponse(req.PublicKey, secret, req.VerifyToken)
	if err != nil {
		return fmt.Errorf("online login: %w", err)
	}
	if _, err := s.stream.Write(mc.AppendEncryptionResponse(nil, shape, resp)); err != nil {
		return err
	}
	if s.r.Buffered() != 0 {
		return errors.New("online login: the relay sent more before the Encryption Response")
	}
	enc, dec, _ := cfb8.NewAESPair(secret)
	s.stream = &cipherStream{Stream: s.stream, enc: enc, dec: dec}
	s.r.Reset(s.stream)
	return nil
}

// cipherStream is a session's stream once the cipher is on. Reads decrypt in place; writes
// encrypt into a buffer the stream keeps, since the profile's templates are written many times.
// One goroutine reads while another writes (Run), which the two separate states allow.
type cipherStream struct {
	Stream
	enc, dec cipher.Stream
	out      []byte
}

func (c *cipherStream) Read(b []byte) (int, error) {
	n, err := c.Stream.Read(b)
	c.dec.XORKeyStream(b[:n], b[:n])
	return n, err
}

func (c *cipherStream) Write(b []byte) (int, error) {
	c.out = append(c.out[:0], b...)
	c.enc.XORKeyStream(c.out, c.out)
	return c.Stream.Write(c.out)
}
