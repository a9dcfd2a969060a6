package gossl

import (
	"crypto/tls"
	"fmt"
	"os"
	"strings"
)

// certSet is one loaded, validated set of certificates, swapped whole on reload.
type certSet struct {
	pems  []PEMPair
	certs []tls.Certificate // parsed, Leaf set; same order as pems
}

// loadCerts reads and validates every source; any failure fails the whole set, so a reload
// either takes every new file or keeps every old one.
func loadCerts(sources []CertSource) (*certSet, error) {
	if len(sources) == 0 {
		return nil, &TLSError{Op: "certificate", Reason: "no certificate configured"}
	}
	set := &certSet{}
	for _, src := range sources {
		pair, err := src.read()
		if err != nil {
			return nil, err
		}
		cert, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
		if err != nil {
			return nil, &TLSError{Op: "certificate", Reason: src.name() + ": " + err.Error(), Err: err}
		}
		set.pems = append(set.pems, pair)
		set.certs = append(set.certs, cert)
	}
	return set, nil
}

func (src CertSource) read() (PEMPair, error) {
	if src.CertFile == "" {
		return src.PEM, nil
	}
	cert, err := os.ReadFile(src.CertFile)
	if err != nil {
		return PEMPair{}, &TLSError{Op: "certificate", Reason: err.Error(), Err: err}
	}
	key, err := os.ReadFile(src.KeyFile)
	if err != nil {
		return PEMPair{}, &TLSError{Op: "certificate", Reason: err.Error(), Err: err}
	}
	return PEMPair{CertPEM: cert, KeyPEM: key}, nil
}

func (src CertSource) name() string {
	if src.CertFile == "" {
		return "in-memory certificate"
	}
	return src.CertFile
}

// pick is SNI selection for the Go provider, the same rule as the shim's on_servername: the
// first of the non-default certificates whose leaf is valid for name, else the default.
func (s *certSet) pick(name string) *tls.Certificate {
	if name != "" {
		for i := 1; i < len(s.certs); i++ {
			if s.certs[i].Leaf.VerifyHostname(name) == nil {
				return &s.certs[i]
			}
		}
	}
	return &s.certs[0]
}

// names lists each leaf's DNS names, for the reload log line.
func (s *certSet) names() string {
	var all []string
	for _, c := range s.certs {
		all = append(all, fmt.Sprint(c.Leaf.DNSNames))
	}
	return strings.Join(all, " ")
}
