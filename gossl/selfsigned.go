package gossl

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// PEMPair is a certificate chain and its private key, both PEM-encoded.
type PEMPair struct {
	CertPEM []byte
	KeyPEM  []byte
}

// SelfSignedName is the subject common name of SelfSigned's certificates, by which a client tells
// the throwaway certificate from others it does not trust.
const SelfSignedName = "moonbridge self-signed"

// SelfSigned makes a throwaway ECDSA P-256 certificate for names (DNS names or IP addresses),
// valid from an hour ago for validFor. It is what `serve` uses when no certificate is
// configured, so that wss works out of the box behind a CDN set to not verify the origin or
// for local tests; production wants a real certificate.
func SelfSigned(names []string, validFor time.Duration) (PEMPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return PEMPair{}, fmt.Errorf("self-signed: key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return PEMPair{}, fmt.Errorf("self-signed: serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: SelfSignedName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, name := range names {
		if ip := net.ParseIP(name); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, name)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return PEMPair{}, fmt.Errorf("self-signed: certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return PEMPair{}, fmt.Errorf("self-signed: key encoding: %w", err)
	}
	return PEMPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}
