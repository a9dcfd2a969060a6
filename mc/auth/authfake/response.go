package authfake

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"fmt"

	"github.com/moonbridge/moonbridge/mc"
)

// EncryptionResponse is a vanilla client's answer to an Encryption Request: secret and token,
// each encrypted with the server's public key (PKIX DER, as the request carries it).
func EncryptionResponse(serverKey, secret, token []byte) (mc.EncryptionResponse, error) {
	key, err := x509.ParsePKIXPublicKey(serverKey)
	if err != nil {
		return mc.EncryptionResponse{}, fmt.Errorf("the server's key: %w", err)
	}
	pub, ok := key.(*rsa.PublicKey)
	if !ok {
		return mc.EncryptionResponse{}, fmt.Errorf("the server's key is a %T, not RSA", key)
	}
	encSecret, err := rsa.EncryptPKCS1v15(rand.Reader, pub, secret)
	if err != nil {
		return mc.EncryptionResponse{}, err
	}
	encToken, err := rsa.EncryptPKCS1v15(rand.Reader, pub, token)
	return mc.EncryptionResponse{SharedSecret: encSecret, VerifyToken: encToken}, err
}
