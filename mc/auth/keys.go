package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

// Keys is the proxy's RSA key pair for Encryption Requests: vanilla clients expect a 1024-bit
// key, which only protects the shared secret for the moment of the login.
type Keys struct {
	private *rsa.PrivateKey
	der     []byte // the public key, X.509 SubjectPublicKeyInfo, as the client gets it
}

// KeyBits is the size of the key NewKeys makes: what vanilla servers use.
const KeyBits = 1024

// NewKeys makes a fresh key pair (at startup).
func NewKeys() (*Keys, error) {
	priv, err := rsa.GenerateKey(rand.Reader, KeyBits)
	if err != nil {
		return nil, fmt.Errorf("making the login key: %w", err)
	}
	return keysOf(priv)
}

// LoadKeys reads a PEM RSA private key (PKCS #1 "RSA PRIVATE KEY" or PKCS #8 "PRIVATE KEY").
func LoadKeys(path string) (*Keys, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("login key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("login key %s: no PEM block", path)
	}
	var priv *rsa.PrivateKey
	switch block.Type {
	case "RSA PRIVATE KEY":
		priv, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "PRIVATE KEY":
		var k any
		if k, err = x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
			var ok bool
			if priv, ok = k.(*rsa.PrivateKey); !ok {
				err = fmt.Errorf("not an RSA key")
			}
		}
	default:
		err = fmt.Errorf("PEM block %q, want an RSA private key", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("login key %s: %w", path, err)
	}
	return keysOf(priv)
}

func keysOf(priv *rsa.PrivateKey) (*Keys, error) {
	der, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("login key: %w", err)
	}
	return &Keys{private: priv, der: der}, nil
}

// PublicDER is the public key as the Encryption Request carries it.
func (k *Keys) PublicDER() []byte { return k.der }

// openInto opens what the client encrypted with the public key (PKCS #1 v1.5) into dst, in
// constant time: when the padding is bad or the plaintext is not len(dst) bytes, dst keeps
// what it held, and nothing else tells the two apart. Callers fill dst first with a value the
// login goes on with (a random key, a token that cannot match), so that a ciphertext that
// does not open takes the same path as one that opens to a wrong value: a client learns
// nothing about the plaintext (Bleichenbacher's padding oracle). The only error is a
// ciphertext that is not the key's size, which anyone can check against the public key.
func (k *Keys) openInto(dst, ciphertext []byte) error {
	return rsa.DecryptPKCS1v15SessionKey(nil, k.private, ciphertext, dst)
}
