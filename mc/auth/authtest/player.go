package authtest

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
	"github.com/moonbridge/moonbridge/mc/cfb8"
)

// Player logs in as a real client does. Its fields after Protocol make it misbehave, for the
// negative tests.
type Player struct {
	Name     string
	Protocol int32
	// Sessions is where the player "joins" before it answers the Encryption Request, as a client
	// calls Mojang's join; nil: the player expects no Encryption Request (offline mode).
	Sessions *authfake.SessionServer
	// ChatKey: a 1.19-1.19.2 player sends a chat key in Login Start and signs the verify token
	// with it instead of encrypting it.
	ChatKey bool
	// ExpiredChatKey sends a chat key that expired a minute ago (1.19-1.19.2).
	ExpiredChatKey bool

	WrongToken bool // encrypts a verify token that is not the one asked
	SecretSize int  // a shared secret of this many bytes instead of 16
	// BadPadding encrypts the shared secret in a block whose padding is not PKCS #1 v1.5
	// encryption padding (block type 1, not 2): what a padding oracle probes with.
	BadPadding       bool
	SkipJoin         bool // does not join (a cracked client)
	SecondLoginStart bool // answers the Encryption Request with another Login Start
	// Pipelined is sent, encrypted, in the same write as the Encryption Response, before the
	// player has heard anything back: a client that does not wait.
	Pipelined []byte
}

// Conn is a player's connection after the login: the cipher is on (online) and the frames the
// backend sends through the proxy come next.
type Conn struct {
	R *bufio.Reader // decrypted
	w io.Writer
	// enc encrypts what the player writes; nil offline.
	enc cipher.Stream
}

// Write sends b (encrypted once the cipher is on).
func (c *Conn) Write(b []byte) (int, error) {
	if c.enc != nil {
		b = append([]byte(nil), b...)
		c.enc.XORKeyStream(b, b)
	}
	return c.w.Write(b)
}

// ReadFrame reads one frame body (packet id and fields), uncompressed format.
func (c *Conn) ReadFrame() ([]byte, error) {
	return mc.ReadParsed(c.R, func(b []byte) ([]byte, int, error) {
		body, n, err := mc.ReadFrame(b, mc.MaxFrameLen)
		return append([]byte(nil), body...), n, err
	})
}

// Login sends the handshake (to host) and Login Start over rw and, when Sessions is set,
// answers the Encryption Request; it returns the connection on which the backend's login
// packets (or the proxy's disconnect) arrive.
func (p Player) Login(rw io.ReadWriter, host string) (*Conn, error) {
	shape, _, ok := mc.LoginShapeOf(p.Protocol)
	if !ok {
		shape = mc.LoginShape{SetCompression: true} // an unknown version: a 1.8-like Login Start
	}
	start, chatKey := p.loginStart(shape)
	hs := mc.Handshake{Protocol: p.Protocol, Port: 25565, NextState: mc.NextLogin}
	hello := mc.AppendLoginStart(hs.AppendFrame(nil, host), shape, start)
	if _, err := rw.Write(hello); err != nil {
		return nil, err
	}
	c := &Conn{R: bufio.NewReader(rw), w: rw}
	if p.Sessions == nil {
		return c, nil
	}
	body, err := c.ReadFrame()
	if err != nil {
		return nil, err
	}
	id, fields, err := mc.PacketID(body)
	if err != nil || id != mc.EncryptionRequestID {
		return c.rewind(body), nil // a disconnect already: the caller reads it
	}
	req, err := mc.ParseEncryptionRequest(fields, shape)
	if err != nil {
		return nil, err
	}
	return p.answer(c, rw, shape, req, chatKey)
}

// rewind puts a frame back in front of what c reads, for a caller that wants to read it.
func (c *Conn) rewind(body []byte) *Conn {
	frame := append(mc.AppendVarInt(nil, int32(len(body))), body...)
	c.R = bufio.NewReader(io.MultiReader(bytes.NewReader(frame), c.R))
	return c
}

func (p Player) loginStart(shape mc.LoginShape) (mc.LoginStart, *rsa.PrivateKey) {
	start := mc.LoginStart{Name: p.Name, HasUUID: shape.LoginStartUUID != mc.UUIDAbsent, UUID: authfake.Profile(p.Name).ID}
	if !(p.ChatKey || p.ExpiredChatKey) || !shape.LoginStartKey {
		return start, nil
	}
	key, _ := rsa.GenerateKey(rand.Reader, 1024)
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	expiry := int64(1 << 42) // in 2109
	if p.ExpiredChatKey {
		expiry = time.Now().Add(-time.Minute).UnixMilli()
	}
	start.Key = &mc.PlayerKey{Expiry: expiry, PublicKey: der, Signature: []byte("mojang's signature")}
	return start, key
}

// answer joins, sends the Encryption Response and turns the cipher on.
func (p Player) answer(c *Conn, rw io.ReadWriter, shape mc.LoginShape, req mc.EncryptionRequest, chatKey *rsa.PrivateKey) (*Conn, error) {
	secret := make([]byte, 16)
	if p.SecretSize != 0 {
		secret = make([]byte, p.SecretSize)
	}
	rand.Read(secret)
	if !p.SkipJoin {
		p.Sessions.Join(p.Name, auth.ServerHash(req.ServerID, secret, req.PublicKey))
	}
	if p.SecondLoginStart {
		start, _ := p.loginStart(shape)
		_, err := rw.Write(mc.AppendLoginStart(nil, shape, start))
		return c, err
	}
	resp, err := p.response(req.PublicKey, secret, req.VerifyToken, chatKey)
	if err != nil {
		return nil, err
	}
	frame := mc.AppendEncryptionResponse(nil, shape, resp)
	var enc, dec cipher.Stream
	if len(secret) == 16 { // otherwise the proxy refuses it in the clear: no cipher
		enc, dec, _ = cfb8.NewAESPair(secret)
		more := bytes.Clone(p.Pipelined)
		enc.XORKeyStream(more, more)
		frame = append(frame, more...)
	}
	if _, err := rw.Write(frame); err != nil {
		return nil, err
	}
	if enc == nil {
		return c, nil
	}
	return &Conn{R: bufio.NewReader(&decrypter{r: c.R, dec: dec}), w: rw, enc: enc}, nil
}

func (p Player) response(serverKey, secret, token []byte, chatKey *rsa.PrivateKey) (mc.EncryptionResponse, error) {
	if p.WrongToken {
		token = []byte("nope")
	}
	resp, err := authfake.EncryptionResponse(serverKey, secret, token)
	if err == nil && p.BadPadding {
		resp.SharedSecret, err = badlyPadded(serverKey, secret)
	}
	if err != nil || chatKey == nil {
		return resp, err
	}
	salt := int64(0x1234)
	sum := auth.SaltedDigest(token, salt)
	sig, err := rsa.SignPKCS1v15(rand.Reader, chatKey, crypto.SHA256, sum[:])
	return mc.EncryptionResponse{SharedSecret: resp.SharedSecret, Signed: true, Salt: salt, Signature: sig}, err
}

// badlyPadded encrypts secret with the server's key (raw RSA) in a block that opens to
// 0x00 0x01 0xff... 0x00 secret: a signature's padding, which decryption must refuse.
func badlyPadded(serverKey, secret []byte) ([]byte, error) {
	key, err := x509.ParsePKIXPublicKey(serverKey)
	if err != nil {
		return nil, err
	}
	pub, ok := key.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the server's key is a %T, not RSA", key)
	}
	block := bytes.Repeat([]byte{0xff}, pub.Size())
	block[0], block[1] = 0x00, 0x01
	block[len(block)-len(secret)-1] = 0x00
	copy(block[len(block)-len(secret):], secret)
	m := new(big.Int).SetBytes(block)
	c := m.Exp(m, big.NewInt(int64(pub.E)), pub.N)
	return c.FillBytes(make([]byte, pub.Size())), nil
}

// decrypter decrypts what it reads.
type decrypter struct {
	r   io.Reader
	dec cipher.Stream
}

func (d *decrypter) Read(b []byte) (int, error) {
	n, err := d.r.Read(b)
	d.dec.XORKeyStream(b[:n], b[:n])
	return n, err
}
