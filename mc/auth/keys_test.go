package auth_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/moonbridge/moonbridge/mc/auth"
)

func TestLoadKeys(t *testing.T) {
	priv, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(priv)
	wantDER, _ := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	dir := t.TempDir()
	for name, block := range map[string]*pem.Block{
		"pkcs1.pem": {Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(priv)},
		"pkcs8.pem": {Type: "PRIVATE KEY", Bytes: pkcs8},
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, pem.EncodeToMemory(block), 0o600)
		k, err := auth.LoadKeys(path)
		if err != nil || string(k.PublicDER()) != string(wantDER) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	bad := filepath.Join(dir, "bad.pem")
	os.WriteFile(bad, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}), 0o600)
	for _, path := range []string{bad, filepath.Join(dir, "missing.pem")} {
		if _, err := auth.LoadKeys(path); err == nil {
			t.Fatalf("%s loaded", path)
		}
	}
}
