package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The files writeCerts makes in a cluster's folder.
const (
	servingCert = "serving.crt" // the API server's certificate, self-signed: also the clients' CA
	servingKey  = "serving.key"
	saKey       = "service-account.key" // signs and checks service account tokens
)

// writeCerts writes a self-signed serving certificate for 127.0.0.1 and localhost, valid for a
// day, and the service account signing key the API server requires at start.
func writeCerts(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "kube-apiserver (moonbridge tests)"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	// Service account tokens are signed with RS256 by default: an RSA key.
	sa, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	saDER, err := x509.MarshalPKCS8PrivateKey(sa)
	if err != nil {
		return err
	}
	for name, block := range map[string]*pem.Block{
		servingCert: {Type: "CERTIFICATE", Bytes: der},
		servingKey:  {Type: "PRIVATE KEY", Bytes: keyDER},
		saKey:       {Type: "PRIVATE KEY", Bytes: saDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			return err
		}
	}
	return nil
}
